-- The event log's floor (review of the privileges, H2). event_partition_drop checked that no position needed a
-- partition, but not the age of its events: that was event_partition_expired's, which a caller may skip, and the
-- positions it checks are rows the runtime role may delete (and a caller's clock far ahead made them count for
-- nothing). A foothold in the runtime role could so drop every partition but the highest, seven years of delivery
-- proof among them. Now the drop itself refuses a partition holding an event younger than the floor, on the
-- database's own clock, and reads the positions at most an hour ahead of it. The floor is the owner's to set: a
-- year by default (below every retention the NMC ships, P7Y; a deployment with a shorter retention.event-log lowers
-- it, or its events stay until the floor); NULL trusts the caller's clock and age entirely, for the tests that move
-- an injected clock by months.
CREATE TABLE eventlog_vloer (
    enkel boolean  PRIMARY KEY DEFAULT true CHECK (enkel),
    vloer interval NULL CHECK (vloer >= interval '0')
);
COMMENT ON TABLE eventlog_vloer IS
    'one row: no event-log partition holding an event younger than vloer (the database''s clock) is dropped; '
    'NULL: no floor (tests with an injected clock). Written by the schema owner only';
INSERT INTO eventlog_vloer (vloer) VALUES (interval '1 year');

-- Drops one partition event_partition_expired named; false when it may no longer go. Its events' age is checked
-- against the floor before the lock: a partition below the watermark receives no rows, and a scan of it under the
-- log's exclusive lock would hold every acceptance back. The positions are checked again under the lock, because
-- an acknowledgement written since must win: a DV acknowledges only after the feed looked up the cursor's event in
-- the same transaction, so once this transaction holds `event` exclusively an acknowledgement into the partition is
-- either committed (and seen here) or finds its event gone (410).
CREATE OR REPLACE FUNCTION event_partition_drop(partitie text, nu timestamptz) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
    floor_age interval := (SELECT v.vloer FROM eventlog_vloer v);
    young     boolean;
BEGIN
    IF floor_age IS NOT NULL THEN
        nu := least(nu, now() + interval '1 hour');
    END IF;
    IF NOT COALESCE(event_partition_droppable(partitie, nu), false) THEN
        RETURN false; -- also for a name that is no range partition of the log: nothing below runs with it
    END IF;
    IF floor_age IS NOT NULL THEN
        EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE tijdstip >= $1)', partitie)
            USING now() - floor_age INTO young;
        IF young THEN
            RETURN false;
        END IF;
    END IF;
    LOCK TABLE ONLY event IN ACCESS EXCLUSIVE MODE;
    IF NOT COALESCE(event_partition_droppable(partitie, nu), false) THEN
        RETURN false;
    END IF;
    EXECUTE format('DROP TABLE %I', partitie);
    RETURN true;
END
$$;
