-- Event-log partitions ahead of the transaction ids (design §6, maintenance): when the highest range
-- partition is filled beyond fill_ratio (by transaction id), the next one of the same width is created.
-- Creating it ahead matters: once rows of a range sit in event_default, a partition for that range can
-- no longer be attached without moving them. Returns the new partition's name, or NULL when none was due.
CREATE FUNCTION event_partition_ensure_next(fill_ratio numeric DEFAULT 0.8) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    huidig     bigint := pg_current_xact_id()::text::bigint;
    ondergrens bigint;
    bovengrens bigint;
    naam       text;
BEGIN
    IF fill_ratio < 0 OR fill_ratio > 1 THEN
        RAISE EXCEPTION 'fill_ratio must lie between 0 and 1, not %', fill_ratio;
    END IF;
    SELECT (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \(''(\d+)''\) TO \(''(\d+)''\)'))[1]::bigint,
           (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \(''(\d+)''\) TO \(''(\d+)''\)'))[2]::bigint
      INTO ondergrens, bovengrens
      FROM pg_inherits i
      JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = 'event'::regclass
       AND pg_get_expr(c.relpartbound, c.oid) <> 'DEFAULT'
     ORDER BY 2 DESC
     LIMIT 1;
    IF bovengrens IS NULL OR huidig < ondergrens + (bovengrens - ondergrens) * fill_ratio THEN
        RETURN NULL;
    END IF;
    naam := format('event_p%s', bovengrens);
    EXECUTE format('CREATE TABLE %I PARTITION OF event FOR VALUES FROM (%L) TO (%L)',
                   naam, bovengrens::text, (bovengrens + (bovengrens - ondergrens))::text);
    RETURN naam;
END
$$;
