-- Event-log retention (design §10) and the rows that fell into event_default (design §8).
--
-- The functions that change partitions take `event` exclusively as their first statement, and their caller
-- sets a short lock_timeout: every lock on `event` queues the feed and the transition function behind it, so
-- a step that cannot get its lock at once gives up (SQLSTATE 55P03) and is tried again next round. Taking the
-- parent first, before any partition, is the one lock order every reader and writer of the log follows too.

-- tijdstip grows with the physical order of an append-only log, so a BRIN index is tiny, costs the writers
-- next to nothing, and lets "does this partition hold an event younger than X" skip every old block range
-- instead of reading years of events each round.
CREATE INDEX event_tijdstip_brin ON event USING brin (tijdstip) WITH (autosummarize = on);

-- The range partitions of the event log, lowest first: name and bounds [van, tot), read from the catalogue
-- the way event_partition_ensure_next (V4) reads them. The default partition has no bounds and is left out.
CREATE FUNCTION event_partition_bounds() RETURNS TABLE (naam text, van xid8, tot xid8)
LANGUAGE sql STABLE AS $$
    SELECT c.relname::text, CAST(g.grenzen[1] AS xid8), CAST(g.grenzen[2] AS xid8)
      FROM pg_inherits i
      JOIN pg_class c ON c.oid = i.inhrelid
     CROSS JOIN LATERAL regexp_match(pg_get_expr(c.relpartbound, c.oid),
                                     'FROM \(''(\d+)''\) TO \(''(\d+)''\)') AS g(grenzen)
     WHERE i.inhparent = 'event'::regclass
       AND g.grenzen IS NOT NULL
     ORDER BY 2
$$;

-- Whether a feed position lies in a dropped part of the log: below the highest range partition's upper bound,
-- yet in no range partition. (At or above that bound rows live in event_default, which is never dropped.)
CREATE FUNCTION event_position_dropped(positie xid8) RETURNS boolean
LANGUAGE sql STABLE AS $$
    SELECT COALESCE(positie < max(b.tot) AND NOT bool_or(positie >= b.van AND positie < b.tot), false)
      FROM event_partition_bounds() b
$$;

-- Whether a DV's position still needs this partition: an acknowledgement or webhook position with an event of
-- its DV in the partition at or after it. "At": the feed looks the cursor's own event up, so a position inside
-- the partition needs it; "after": a position before it has those events still to read; a position past the
-- partition needs nothing of it, and a DV without events in it is not held up by its position either.
-- An acknowledgement counts only in the current cluster epoch and while it is younger than its DV's max cursor
-- age: an older one gets 410 anyway (design §8). A webhook position always counts (a paused webhook resumes);
-- one that has delivered nothing yet stands before the first event.
CREATE FUNCTION event_partition_needed(partitie text, nu timestamptz) RETURNS boolean
LANGUAGE plpgsql STABLE AS $$
DECLARE
    nodig boolean;
BEGIN
    EXECUTE format($q$
        SELECT EXISTS (
            SELECT 1
              FROM (SELECT b.dv_id, b.transactie_id, b.event_id
                      FROM bevestiging b
                      JOIN dienstverlener d ON d.id = b.dv_id
                     WHERE b.cluster_epoch = (SELECT epoch FROM cluster_epoch)
                       AND b.tijdstip >= $1 - d.max_cursorleeftijd
                    UNION ALL
                    SELECT w.dv_id, COALESCE(w.transactie_id, '0'), COALESCE(w.event_id, 0)
                      FROM webhookpositie w) p
             WHERE EXISTS (SELECT 1 FROM %I e
                            WHERE e.dv_id = p.dv_id
                              AND (e.transactie_id, e.id) >= (p.transactie_id, p.event_id)))
        $q$, partitie) USING nu INTO nodig;
    RETURN nodig;
END
$$;

-- Whether a range partition may be dropped now, apart from its events' age: it is not the highest (the upkeep
-- of V4 builds the next one on it), its range lies below the visibility watermark (no running transaction can
-- still write into it, so its events are final), and no position needs it.
CREATE FUNCTION event_partition_droppable(partitie text, nu timestamptz) RETURNS boolean
LANGUAGE sql STABLE AS $$
    SELECT b.tot < (SELECT max(h.tot) FROM event_partition_bounds() h)
           AND b.tot <= pg_snapshot_xmin(pg_current_snapshot())
           AND NOT event_partition_needed(b.naam, nu)
      FROM event_partition_bounds() b
     WHERE b.naam = partitie
$$;

-- The range partitions whose time is over, lowest first, without taking a lock: droppable, and their youngest
-- event older than grens (the NMC's now minus the retention; an empty partition has nothing to keep).
CREATE FUNCTION event_partition_expired(nu timestamptz, grens timestamptz) RETURNS SETOF text
LANGUAGE plpgsql STABLE AS $$
DECLARE
    p    record;
    jong boolean;
BEGIN
    FOR p IN SELECT b.naam FROM event_partition_bounds() b ORDER BY b.van LOOP
        CONTINUE WHEN NOT COALESCE(event_partition_droppable(p.naam, nu), false);
        EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE tijdstip >= $1)', p.naam) USING grens INTO jong;
        IF NOT jong THEN
            RETURN NEXT p.naam;
        END IF;
    END LOOP;
END
$$;

-- Drops one partition event_partition_expired named; false when it may no longer go. The check runs again
-- under the lock, because an acknowledgement written since must win: a DV acknowledges only after the feed
-- looked up the cursor's event in the same transaction, so once this transaction holds `event` exclusively an
-- acknowledgement into the partition is either committed (and seen here) or finds its event gone (410).
-- The age is not checked again: a partition below the watermark receives no rows.
CREATE FUNCTION event_partition_drop(partitie text, nu timestamptz) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
    LOCK TABLE ONLY event IN ACCESS EXCLUSIVE MODE;
    IF NOT COALESCE(event_partition_droppable(partitie, nu), false) THEN
        RETURN false;
    END IF;
    EXECUTE format('DROP TABLE %I', partitie);
    RETURN true;
END
$$;

-- Moves the rows of event_default into a range partition of their own: at or above the highest partition one
-- of the same width on V4's grid (as V4 would have made it in time), below it the gap that holds the lowest
-- row (only after manual changes). Returns the new partition and how many rows moved; no row when the default is
-- empty. One range per call; the caller calls again while rows remain.
--
-- One transaction holding `event` exclusively: moving the rows in several short transactions would hide them
-- from the feed in between, and a cursor read past that moment would skip them for good. A partition cannot be
-- created over rows in the default, so the new one is built as a plain table (without the identity, which a
-- partition may not have), filled, the rows deleted from the default, and attached; its CHECK on the range
-- spares the attach a scan of it. Rows land in the default only while the upkeep lagged, so there are few, and
-- the lock is short; with `event` held no writer can add a row to the range meanwhile.
CREATE FUNCTION event_default_adopt() RETURNS TABLE (partitie text, verplaatst bigint)
LANGUAGE plpgsql AS $$
DECLARE
    laagste     numeric;
    hoogste_van numeric;
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
    SELECT CAST(CAST(b.van AS text) AS numeric), CAST(CAST(b.tot AS text) AS numeric)
      INTO hoogste_van, hoogste_tot
      FROM event_partition_bounds() b ORDER BY b.tot DESC LIMIT 1;
    IF hoogste_tot IS NULL THEN
        RAISE EXCEPTION 'event has no range partition to take the width of a new one from';
    END IF;
    IF laagste >= hoogste_tot THEN
        -- the range of the highest one's width that holds the lowest row; ranges skipped below it stay a gap
        -- that holds no row (one written there later is adopted like any other)
        ondergrens := hoogste_tot + floor((laagste - hoogste_tot) / (hoogste_tot - hoogste_van))
                                    * (hoogste_tot - hoogste_van);
        bovengrens := ondergrens + (hoogste_tot - hoogste_van);
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
