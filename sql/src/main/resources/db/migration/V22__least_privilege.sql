-- Least privilege (server/ARCHITECTURE.md §5, "Database roles"): the NMC runs as a role that is a member of
-- nmc_runtime and of nothing else. Its privileges are restated after every migration by the script
-- db/runtime_privileges.sql, which the Flyway callback db/RuntimePrivileges runs (so a later table has them without
-- a line of its own); this migration adds what that script relies on.

-- The operators' audit is append-only for the runtime role; its retention deletes through this function, which
-- keeps every action of the last year whatever limit it is given, so a foothold in the runtime role cannot empty
-- the audit. At most 1,000 rows a call (the duty calls again while rows go).
CREATE FUNCTION beheeractie_opschonen(grens timestamptz) RETURNS bigint
LANGUAGE sql AS $$
    WITH weg AS (
        DELETE FROM beheeractie
         WHERE id IN (SELECT id FROM beheeractie
                       WHERE tijdstip < least(grens, now() - interval '1 year')
                       ORDER BY tijdstip
                       LIMIT 1000)
        RETURNING 1)
    SELECT count(*) FROM weg
$$;
