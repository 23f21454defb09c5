-- A status change rewrites no index (issue 20, "3 KB as written"). PostgreSQL updates a row in place on its page
-- (a HOT update: no new index entries) only when no column an index names changes and the page has room. Every
-- transition changes status, and two indexes named it: each transition then added an entry to every index of
-- the table, which only VACUUM took back. From here no index names status:
--  - the control duty's scan of the notifications still under way uses terminaal_sinds IS NULL, which changes only
--    when a notification becomes terminal (or leaves bezorgstatus-onbekend), a write that moves
--    notificatie_terminaal_idx anyway; its queries name the predicate;
--  - the count of bezorgstatus-onbekend reads a stored generated column, which changes only with that status.
-- A page keeps a fifth free for the in-place versions of its rows.
ALTER TABLE notificatie
    ADD COLUMN bezorgstatus_onbekend boolean GENERATED ALWAYS AS (status = 'bezorgstatus-onbekend') STORED;

DROP INDEX notificatie_actief_idx;
CREATE INDEX notificatie_onderweg_idx ON notificatie (id) WHERE terminaal_sinds IS NULL;

DROP INDEX notificatie_onbekend_idx;
CREATE INDEX notificatie_onbekend_idx ON notificatie (dv_id) WHERE bezorgstatus_onbekend;

ALTER TABLE notificatie SET (fillfactor = 80);
