-- Acceptances per DV per second, for the quota per minute (design §4). The quota check sums at most the
-- last 60 rows of one DV and adds one in a single statement outside the acceptance transaction, so it
-- costs the same whatever the DV's rate and no acceptance waits for another's commit (issue #7: the old
-- check locked the DV's register row and counted its notifications of the last minute).
--
-- UNLOGGED: a counter needs no durability. Its writes produce no WAL, so the statement's commit needs no
-- flush; after a crash PostgreSQL empties the table, which at most grants a DV one extra minute of quota.
-- No foreign key to dienstverlener: the check would lock the DV's row, the very contention this avoids;
-- a counter of a removed DV is harmless and is removed with the other past seconds.
CREATE UNLOGGED TABLE aannameteller (
    dv_id   uuid        NOT NULL,
    tijdvak timestamptz NOT NULL,
    aantal  int         NOT NULL CHECK (aantal >= 0),
    PRIMARY KEY (dv_id, tijdvak)
);

-- Takes up to p_gevraagd slots of the DV's quota in the second p_tijdvak and returns how many it granted:
-- at most what the quota leaves after the seconds since p_venster_start (exclusive) and this second. The
-- row lock on this second's counter serialises the takes of one DV for the length of this one call only.
CREATE FUNCTION aannamequotum_nemen(p_dv uuid, p_tijdvak timestamptz, p_venster_start timestamptz,
                                    p_quotum int, p_gevraagd int) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
    huidig    int;
    eerder    int;
    toegekend int;
BEGIN
    INSERT INTO aannameteller (dv_id, tijdvak, aantal) VALUES (p_dv, p_tijdvak, 0) ON CONFLICT DO NOTHING;
    SELECT aantal INTO huidig FROM aannameteller WHERE dv_id = p_dv AND tijdvak = p_tijdvak FOR UPDATE;
    SELECT COALESCE(SUM(aantal), 0) INTO eerder FROM aannameteller
     WHERE dv_id = p_dv AND tijdvak > p_venster_start AND tijdvak < p_tijdvak;
    toegekend := GREATEST(0, LEAST(p_gevraagd, p_quotum - eerder - huidig));
    IF toegekend > 0 THEN
        UPDATE aannameteller SET aantal = aantal + toegekend WHERE dv_id = p_dv AND tijdvak = p_tijdvak;
    END IF;
    RETURN toegekend;
END
$$;

-- The feed's call counter (V6) is the same kind of counter: no WAL, no flush per feed call.
ALTER TABLE feedaanroep SET UNLOGGED;

-- Every acceptance maintains every index of notificatie. These two served nothing any more: the quota no
-- longer counts notifications, and the unique idempotency index (dv_id, dvref_hmac, payload_hmac) serves
-- the search by dvRef through its prefix.
DROP INDEX notificatie_dvref_idx;
DROP INDEX notificatie_dv_aangenomen_idx;
