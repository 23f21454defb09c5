-- The guard of the status model (design §2): the only writer of notificatie.status is the transition
-- function; these triggers refuse anything else.
--
-- SQLSTATEs (custom class NM), for the Java side to tell them apart:
--   NM001  transition not allowed: (van, naar) is not in toegestane_overgang
--          (on INSERT: the status is not one a notification may start with, i.e. not aangenomen)
--   NM002  version/status change without event: status changed without versie + 1, or (at commit)
--          no event row with volgnummer = versie, naar = status, van = previous status, the same
--          dv_id and transactie_id = this transaction
--   NM003  invalid versie step: versie must be 1 on INSERT and OLD.versie + 1 on a transition
--   NM004  event rows are immutable (UPDATE refused; DELETE stays allowed for retention)

-- ---------------------------------------------------------------------------------------------
-- a) BEFORE INSERT: a notification starts as (NULL -> aangenomen) with versie 1
-- ---------------------------------------------------------------------------------------------
CREATE FUNCTION notificatie_controleer_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM toegestane_overgang o WHERE o.van IS NULL AND o.naar = NEW.status) THEN
        RAISE EXCEPTION 'notificatie %: transition (none) -> % is not allowed', NEW.id, NEW.status
            USING ERRCODE = 'NM001',
                  HINT = 'a notification is inserted with status aangenomen and versie 1';
    END IF;
    IF NEW.versie IS DISTINCT FROM 1 THEN
        RAISE EXCEPTION 'notificatie %: inserted with versie %, must be 1', NEW.id, NEW.versie
            USING ERRCODE = 'NM003';
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER notificatie_controleer_insert
    BEFORE INSERT ON notificatie
    FOR EACH ROW EXECUTE FUNCTION notificatie_controleer_insert();

-- ---------------------------------------------------------------------------------------------
-- b) BEFORE UPDATE: a versie change is one step along an allowed pair; a status change needs one.
--    Updates that change neither versie nor status (e.g. erasing datasleutel_gewrapt) pass
--    without calling the function.
-- ---------------------------------------------------------------------------------------------
CREATE FUNCTION notificatie_controleer_update() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.versie IS DISTINCT FROM OLD.versie THEN
        IF NEW.versie IS DISTINCT FROM OLD.versie + 1 THEN
            RAISE EXCEPTION 'notificatie %: versie % -> % is not a single step', NEW.id, OLD.versie, NEW.versie
                USING ERRCODE = 'NM003';
        END IF;
        IF NOT EXISTS (SELECT 1 FROM toegestane_overgang o
                        WHERE o.van = OLD.status AND o.naar = NEW.status) THEN
            RAISE EXCEPTION 'notificatie %: transition % -> % is not allowed', NEW.id, OLD.status, NEW.status
                USING ERRCODE = 'NM001';
        END IF;
    ELSIF NEW.status IS DISTINCT FROM OLD.status THEN
        RAISE EXCEPTION 'notificatie %: status % -> % without a new versie', NEW.id, OLD.status, NEW.status
            USING ERRCODE = 'NM002',
                  HINT = 'status changes only through the transition function (versie + 1 and an event)';
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER notificatie_controleer_update
    BEFORE UPDATE ON notificatie
    FOR EACH ROW
    WHEN (OLD.versie IS DISTINCT FROM NEW.versie OR OLD.status IS DISTINCT FROM NEW.status)
    EXECUTE FUNCTION notificatie_controleer_update();

-- ---------------------------------------------------------------------------------------------
-- c) At commit: every versie written in this transaction has its event, written in this
--    transaction. Queued once per INSERT and per versie-changing UPDATE, so a row that moved twice
--    in one transaction needs an event for each version; the row is also re-read, so its current
--    version is checked against the current state.
-- ---------------------------------------------------------------------------------------------
CREATE FUNCTION notificatie_eist_event() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    xact       xid8 := pg_current_xact_id();
    vorige     text;
    h_versie   int;
    h_status   text;
    h_dv_id    uuid;
BEGIN
    SELECT n.versie, n.status, n.dv_id INTO h_versie, h_status, h_dv_id
      FROM notificatie n WHERE n.id = NEW.id;
    IF NOT FOUND THEN
        RETURN NULL;   -- deleted later in this transaction: nothing left to guard
    END IF;

    IF TG_OP = 'UPDATE' THEN
        vorige := OLD.status;
    END IF;

    -- the version this INSERT/UPDATE wrote
    IF NOT EXISTS (SELECT 1 FROM event e
                    WHERE e.notificatie = NEW.id
                      AND e.volgnummer = NEW.versie
                      AND e.transactie_id = xact
                      AND e.naar = NEW.status
                      AND e.van IS NOT DISTINCT FROM vorige
                      AND e.dv_id = NEW.dv_id) THEN
        RAISE EXCEPTION 'notificatie %: versie % (% -> %) has no event in this transaction',
                        NEW.id, NEW.versie, coalesce(vorige, '(none)'), NEW.status
            USING ERRCODE = 'NM002',
                  HINT = 'write an event with volgnummer = versie, van, naar and dv_id of the transition in the same transaction';
    END IF;

    -- the row as it is now
    IF h_versie IS DISTINCT FROM NEW.versie
       AND NOT EXISTS (SELECT 1 FROM event e
                        WHERE e.notificatie = NEW.id
                          AND e.volgnummer = h_versie
                          AND e.transactie_id = xact
                          AND e.naar = h_status
                          AND e.dv_id = h_dv_id) THEN
        RAISE EXCEPTION 'notificatie %: current versie % (%) has no event in this transaction',
                        NEW.id, h_versie, h_status
            USING ERRCODE = 'NM002';
    END IF;

    RETURN NULL;
END
$$;

-- INSERT and UPDATE need separate triggers: an INSERT trigger's WHEN cannot refer to OLD.
CREATE CONSTRAINT TRIGGER notificatie_eist_event_insert
    AFTER INSERT ON notificatie
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION notificatie_eist_event();

CREATE CONSTRAINT TRIGGER notificatie_eist_event_update
    AFTER UPDATE ON notificatie
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW
    WHEN (OLD.versie IS DISTINCT FROM NEW.versie)
    EXECUTE FUNCTION notificatie_eist_event();

-- ---------------------------------------------------------------------------------------------
-- Event rows are immutable. DELETE (retention) and dropping partitions stay allowed.
-- ---------------------------------------------------------------------------------------------
CREATE FUNCTION event_onveranderlijk() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'event % is immutable', OLD.id
        USING ERRCODE = 'NM004';
END
$$;

CREATE TRIGGER event_onveranderlijk
    BEFORE UPDATE ON event
    FOR EACH ROW EXECUTE FUNCTION event_onveranderlijk();
