-- An event carries the id of the transaction that writes it (review of the privileges, M1). The runtime role keeps
-- INSERT on event, and transactie_id had only its DEFAULT: an event with an id of its own choosing landed in a range
-- every cursor had already passed (history no DV reads, backdated into the log), or, far ahead, in event_default,
-- whose adoption then made a partition up there; from it the upkeep extended its grid, event_partition_ensure_next
-- made no partition again, and retention stopped for good. The NMC never sets the column. The schema's owner (its
-- SECURITY DEFINER maintenance, a DBA, a test that seeds the log) may, as it may drop this trigger too. Refused as
-- a privilege (42501), before the row reaches a partition. The row's own relation (a partition, the trigger cloned
-- onto it) names the owner, so the function reads no name through the search_path.
CREATE FUNCTION event_eigen_transactie() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.transactie_id IS DISTINCT FROM pg_catalog.pg_current_xact_id() THEN
        IF NOT pg_catalog.pg_has_role(
                   current_user,
                   (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid = TG_RELID),
                   'MEMBER') THEN
            RAISE EXCEPTION 'an event carries the id of the transaction that writes it'
                USING ERRCODE = '42501',
                      DETAIL = format('transactie_id %s in transaction %s', NEW.transactie_id,
                                      pg_catalog.pg_current_xact_id());
        END IF;
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER event_eigen_transactie
    BEFORE INSERT ON event
    FOR EACH ROW EXECUTE FUNCTION event_eigen_transactie();
