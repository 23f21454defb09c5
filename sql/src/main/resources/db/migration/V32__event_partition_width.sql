-- Every new event-log partition is 10,000,000 transaction ids wide, the grid V1 meant. Until now the next partition
-- (V4) and one adopted from event_default (V7) took the width of the highest partition, and V1's first one reaches
-- from xid 0 to the xid at migration plus up to 20,000,000. On a cluster that had used many xids before the NMC was
-- migrated into it (a shared, upgraded or restored server) that first width was the cluster's whole history — up to
-- billions — and so was every partition after it: none would fill within any retention period, and since only a
-- partition below the highest is dropped, no event would ever reach its end of retention (seed 000: "een partitie
-- wordt opgeruimd op de leeftijd van haar jongste event"). A partition made that wide before this migration stays
-- as it is; the next one after it is of the grid's width.

CREATE OR REPLACE FUNCTION event_partition_ensure_next(fill_ratio numeric DEFAULT 0.8) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    breedte    CONSTANT bigint := 10000000;
    huidig     bigint := pg_current_xact_id()::text::bigint;
    ondergrens bigint;
    bovengrens bigint;
    naam       text;
BEGIN
    IF fill_ratio < 0 OR fill_ratio > 1 THEN
        RAISE EXCEPTION 'fill_ratio must lie between 0 and 1, not %', fill_ratio;
    END IF;
    SELECT CAST(CAST(b.van AS text) AS bigint), CAST(CAST(b.tot AS text) AS bigint)
      INTO ondergrens, bovengrens
      FROM event_partition_bounds() b
     ORDER BY b.tot DESC
     LIMIT 1;
    -- due by its own fill, as before: a wide first partition is so at once, which only makes the next one early
    IF bovengrens IS NULL OR huidig < ondergrens + (bovengrens - ondergrens) * fill_ratio THEN
        RETURN NULL;
    END IF;
    naam := format('event_p%s', bovengrens);
    EXECUTE format('CREATE TABLE %I PARTITION OF event FOR VALUES FROM (%L) TO (%L)',
                   naam, bovengrens::text, (bovengrens + breedte)::text);
    RETURN naam;
END
$$;

-- As V7's, with the grid's width above the highest partition instead of that partition's own.
CREATE OR REPLACE FUNCTION event_default_adopt() RETURNS TABLE (partitie text, verplaatst bigint)
LANGUAGE plpgsql AS $$
DECLARE
    breedte     CONSTANT numeric := 10000000;
    laagste     numeric;
    hoogste_tot numeric;
    ondergrens  numeric;
    bovengrens  numeric;
    geschrapt   bigint;
BEGIN
    LOCK TABLE ONLY event IN ACCESS EXCLUSIVE MODE;
    SELECT CAST(CAST(min(transactie_id) AS text) AS numeric) INTO laagste FROM event_default;
    IF laagste IS NULL THEN
        RETURN;
    END IF;
    SELECT CAST(CAST(b.tot AS text) AS numeric)
      INTO hoogste_tot
      FROM event_partition_bounds() b ORDER BY b.tot DESC LIMIT 1;
    IF hoogste_tot IS NULL THEN
        RAISE EXCEPTION 'event has no range partition to continue the grid from';
    END IF;
    IF laagste >= hoogste_tot THEN
        -- the grid range above the highest that holds the lowest row; ranges skipped below it stay a gap that
        -- holds no row (one written there later is adopted like any other)
        ondergrens := hoogste_tot + floor((laagste - hoogste_tot) / breedte) * breedte;
        bovengrens := ondergrens + breedte;
    ELSE
        SELECT COALESCE(max(CAST(CAST(b.tot AS text) AS numeric)) FILTER (WHERE CAST(CAST(b.tot AS text) AS numeric) <= laagste), 0),
               min(CAST(CAST(b.van AS text) AS numeric)) FILTER (WHERE CAST(CAST(b.van AS text) AS numeric) > laagste)
          INTO ondergrens, bovengrens
          FROM event_partition_bounds() b;
    END IF;
    partitie := format('event_p%s', ondergrens);
    EXECUTE format('CREATE TABLE %I (LIKE event INCLUDING CONSTRAINTS INCLUDING INDEXES)', partitie);
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I CHECK (transactie_id >= %L AND transactie_id < %L)',
                   partitie, partitie || '_bereik', ondergrens, bovengrens);
    EXECUTE format('INSERT INTO %I SELECT * FROM event_default WHERE transactie_id >= %L AND transactie_id < %L',
                   partitie, ondergrens, bovengrens);
    GET DIAGNOSTICS verplaatst = ROW_COUNT;
    EXECUTE format('DELETE FROM event_default WHERE transactie_id >= %L AND transactie_id < %L',
                   ondergrens, bovengrens);
    GET DIAGNOSTICS geschrapt = ROW_COUNT;
    IF geschrapt <> verplaatst THEN
        RAISE EXCEPTION 'moved % rows of event_default but deleted %', verplaatst, geschrapt;
    END IF;
    EXECUTE format('ALTER TABLE event ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)',
                   partitie, ondergrens, bovengrens);
    RETURN NEXT;
END
$$;
