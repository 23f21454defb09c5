-- The runtime role's privileges (server/ARCHITECTURE.md §5, "Database roles"), restated after every migration (the
-- Flyway callback db/RuntimePrivileges runs it, not a versioned migration), so a table a later migration adds has them without a line of its
-- own. The NMC's login role is a member of nmc_runtime and of nothing else; the schema owner, which runs the
-- migrations, is used by the migration step alone. nmc_runtime gets the DML the NMC needs and nothing that could
-- undo the design's guards: no DDL (no trigger disabled, no table dropped or altered, no function replaced), no
-- change to the migration history or the transition table, the event log and the operators' audit append-only.
-- What must create, read or drop partitions, or age out the audit, runs as SECURITY DEFINER functions with a pinned
-- search_path. Every object is looked up first: the callback also runs after a migration to an earlier version.
DO $$
DECLARE
    schema_name text := current_schema();
    name        text;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'nmc_runtime') THEN
        RAISE EXCEPTION 'role nmc_runtime does not exist: create it (NOLOGIN) and grant it to the NMC''s login '
            'role before migrating (server/OPERATIONS.md, "Database roles")';
    END IF;
    EXECUTE format('REVOKE ALL ON ALL TABLES IN SCHEMA %I FROM nmc_runtime', schema_name);
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA %I TO nmc_runtime', schema_name);
    EXECUTE format('REVOKE ALL ON ALL SEQUENCES IN SCHEMA %I FROM nmc_runtime', schema_name);
    EXECUTE format('GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA %I TO nmc_runtime', schema_name);
    -- read only: the history the NMC validates at start, the transitions the trigger allows, and the floors of the
    -- event log and the operators' audit (the youngest rows no retention may take)
    FOREACH name IN ARRAY ARRAY['flyway_schema_history', 'toegestane_overgang', 'eventlog_vloer', 'beheeractie_vloer']
    LOOP
        IF to_regclass(format('%I.%I', schema_name, name)) IS NOT NULL THEN
            EXECUTE format('REVOKE INSERT, UPDATE, DELETE ON %I.%I FROM nmc_runtime', schema_name, name);
        END IF;
    END LOOP;
    -- append-only: the event log (its partitions go through event_partition_drop) and the operators' audit (aged out
    -- through beheeractie_opschonen)
    FOREACH name IN ARRAY ARRAY['event', 'beheeractie'] LOOP
        IF to_regclass(format('%I.%I', schema_name, name)) IS NOT NULL THEN
            EXECUTE format('REVOKE UPDATE, DELETE ON %I.%I FROM nmc_runtime', schema_name, name);
        END IF;
    END LOOP;
    -- the event log's partitions are written through `event` only; the partition upkeep reads event_default. A
    -- partition a DBA detached (ARCHITECTURE §10: a too-wide one) or keeps as an archive is no longer among event's
    -- children, and the grant on all tables above made it the runtime role's to rewrite: the name holds it here too.
    IF to_regclass(format('%I.event', schema_name)) IS NOT NULL THEN
        FOR name IN SELECT c.oid::regclass::text FROM pg_class c
                     WHERE c.relnamespace = to_regnamespace(quote_ident(schema_name)) AND c.relkind IN ('r', 'p')
                       AND (c.oid IN (SELECT i.inhrelid FROM pg_inherits i
                                       WHERE i.inhparent = to_regclass(format('%I.event', schema_name)))
                            OR c.relname ~ '^event_(p[0-9]+|default)$')
        LOOP
            EXECUTE format('REVOKE ALL ON %s FROM nmc_runtime', name);
            EXECUTE format('GRANT SELECT ON %s TO nmc_runtime', name);
        END LOOP;
    END IF;
    -- Every routine of the schema, the transition guard's trigger functions and the SECURITY DEFINER ones below,
    -- runs with a search_path no caller can change: the schema, pg_temp last. Unpinned, a relation name in it is
    -- looked up in the caller's session, temporary schema first: a temporary table named toegestane_overgang or
    -- event shadowed the real one inside the trigger, and a forbidden transition committed without its event.
    -- Extensions' routines are theirs.
    FOR name IN SELECT p.oid::regprocedure::text FROM pg_proc p
                 WHERE p.pronamespace = to_regnamespace(quote_ident(schema_name)) AND p.prokind IN ('f', 'p')
                   AND NOT EXISTS (SELECT 1 FROM pg_depend d
                                    WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
    LOOP
        EXECUTE format('ALTER ROUTINE %s SET search_path = %I, pg_temp', name, schema_name);
    END LOOP;
    FOREACH name IN ARRAY ARRAY[
            'event_partition_ensure_next(numeric)',
            'event_partition_drop(text, timestamptz)',
            'event_default_adopt()',
            -- reads the partitions themselves, which the runtime role cannot: they are created after this callback
            'event_partition_expired(timestamptz, timestamptz)',
            'beheeractie_opschonen(timestamptz)'] LOOP
        IF to_regprocedure(format('%I.%s', schema_name, name)) IS NOT NULL THEN
            -- the owner's rights (their search_path pinned above), callable by the runtime role only
            EXECUTE format('ALTER FUNCTION %I.%s SECURITY DEFINER', schema_name, name);
            EXECUTE format('REVOKE EXECUTE ON FUNCTION %I.%s FROM PUBLIC', schema_name, name);
            EXECUTE format('GRANT EXECUTE ON FUNCTION %I.%s TO nmc_runtime', schema_name, name);
        END IF;
    END LOOP;
    -- and no temporary tables at all for the NMC's roles (the NMC makes none): one that outlived its transaction on a
    -- pooled connection would shadow a table in the NMC's own statements. The migrating role owns the database (the
    -- cluster's bootstrap makes it so), so it may revoke what PUBLIC has by default.
    EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC, nmc_runtime', current_database());
    IF has_database_privilege('nmc_runtime', current_database(), 'TEMPORARY') THEN
        RAISE EXCEPTION 'nmc_runtime may still create temporary tables in database %: revoke TEMPORARY from the '
            'roles it is a member of (server/OPERATIONS.md, "Database roles")', current_database();
    END IF;
END
$$;
