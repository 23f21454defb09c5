-- Self-checking test of the schema's guards (V1..V3): the status triggers, the allowed pairs,
-- event immutability, the receipt dedupe, the task uniqueness and event partition pruning.
--
-- Run against a freshly migrated database, as the owner role:
--   psql -X -v ON_ERROR_STOP=1 -f sql/src/test/sql/trigger-checks.sql "$URL"
-- Every check prints 'PASS ...'; a failing check raises and (ON_ERROR_STOP) psql exits non-zero.
-- The last line is 'N passed, 0 failed'. Errors that are EXPECTED (commit-time refusals) are
-- printed by psql on stderr as "ERROR: ..." and announced by an 'expecting ...' line before them.
-- The test data are removed at the start and the end, so the script can be re-run.

\set ON_ERROR_STOP 1
\set QUIET 1
\pset pager off
\pset tuples_only on
\pset format unaligned
SET client_min_messages = warning;

-- ---------------------------------------------------------------------------------------------
-- helpers (session-local)
-- ---------------------------------------------------------------------------------------------
CREATE TEMP TABLE uitslag (nr serial, label text NOT NULL);

CREATE FUNCTION pg_temp.pass(label text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO uitslag (label) VALUES (label);
    RETURN 'PASS ' || label;
END $$;

CREATE FUNCTION pg_temp.check(ok boolean, label text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    IF ok IS NOT TRUE THEN
        RAISE EXCEPTION 'CHECK FAILED: %', label;
    END IF;
    RETURN pg_temp.pass(label);
END $$;

-- runs stmt in a subtransaction and expects it to fail with the given SQLSTATE
CREATE FUNCTION pg_temp.expect_error(stmt text, state text, label text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    got text;
    msg text;
BEGIN
    BEGIN
        EXECUTE stmt;
    EXCEPTION WHEN OTHERS THEN
        GET STACKED DIAGNOSTICS got = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
    END;
    IF got IS NULL THEN
        RAISE EXCEPTION 'CHECK FAILED: % -- expected SQLSTATE %, but the statement succeeded', label, state;
    ELSIF got <> state THEN
        RAISE EXCEPTION 'CHECK FAILED: % -- expected SQLSTATE %, got %: %', label, state, got, msg;
    END IF;
    RETURN pg_temp.pass(label || ' [' || got || ': ' || msg || ']');
END $$;

-- for errors raised at COMMIT, caught by psql: compares psql's :SQLSTATE
CREATE FUNCTION pg_temp.expect_state(got text, state text, label text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    IF got IS DISTINCT FROM state THEN
        RAISE EXCEPTION 'CHECK FAILED: % -- expected SQLSTATE % at commit, got %', label, state, got;
    END IF;
    RETURN pg_temp.pass(label || ' [' || got || ']');
END $$;

CREATE FUNCTION pg_temp.plan(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    r text;
    res text := '';
BEGIN
    FOR r IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        res := res || r || E'\n';
    END LOOP;
    RETURN res;
END $$;

-- test fixtures
CREATE FUNCTION pg_temp.nid(n int) RETURNS uuid LANGUAGE sql IMMUTABLE AS $$
    SELECT ('00000000-0000-4000-8000-' || lpad(n::text, 12, '0'))::uuid
$$;

CREATE FUNCTION pg_temp.dv() RETURNS uuid LANGUAGE sql IMMUTABLE AS $$
    SELECT 'd0000000-0000-4000-8000-000000000001'::uuid
$$;

CREATE FUNCTION pg_temp.opruimen() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM event WHERE dv_id = pg_temp.dv();
    DELETE FROM notificatie WHERE dv_id = pg_temp.dv();
    DELETE FROM dienstverlener WHERE id = pg_temp.dv();
    DELETE FROM berichttype WHERE code = 'trigger-check';
END $$;

-- the notificatie row as the acceptance inserts it (status aangenomen, versie 1)
CREATE FUNCTION pg_temp.nieuw(id uuid, status text DEFAULT 'aangenomen', versie int DEFAULT 1)
RETURNS void LANGUAGE sql AS $$
    INSERT INTO notificatie (id, dv_id, dvref_hmac, pepper_versie, payload_hmac, berichttype, regie,
                             status, versie, ontvanger_versleuteld, personalisatie_versleuteld,
                             datasleutel_gewrapt, kek_versie, trace_id, aangenomen_op)
    VALUES (id, pg_temp.dv(), sha256(id::text::bytea), 1, sha256(('p' || id::text)::bytea),
            'trigger-check', 'decentraal', status, versie, '\x01', '\x02', '\x03', 1,
            '0af7651916cd43dd8448eb211c80319c', now());
$$;

CREATE FUNCTION pg_temp.event(id uuid, volgnummer int, van text, naar text) RETURNS void LANGUAGE sql AS $$
    INSERT INTO event (tijdstip, dv_id, notificatie, volgnummer, van, naar)
    VALUES (now(), pg_temp.dv(), id, volgnummer, van, naar);
$$;

-- what the transition function does: lock, versie + 1, event
CREATE FUNCTION pg_temp.overgang(nid uuid, naar text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    n notificatie%ROWTYPE;
BEGIN
    SELECT * INTO n FROM notificatie WHERE id = nid FOR UPDATE;
    UPDATE notificatie SET status = naar, versie = n.versie + 1 WHERE id = nid;
    PERFORM pg_temp.event(nid, n.versie + 1, n.status, naar);
END $$;

SELECT pg_temp.opruimen();
INSERT INTO dienstverlener (id, oin, naam) VALUES (pg_temp.dv(), '00000000000000000042', 'trigger-check DV');
INSERT INTO berichttype (code, notify_template_id) VALUES ('trigger-check', gen_random_uuid());

\echo '--- allowed pairs'
SELECT pg_temp.check((SELECT count(*) FROM toegestane_overgang) = 21, 'toegestane_overgang has exactly 21 rows');
SELECT pg_temp.check(EXISTS (SELECT 1 FROM toegestane_overgang WHERE van IS NULL AND naar = 'aangenomen'),
                     'pair (NULL, aangenomen) present');
SELECT pg_temp.check(EXISTS (SELECT 1 FROM toegestane_overgang WHERE van = 'verzonden' AND naar = 'verzonden'),
                     'pair (verzonden, verzonden) present');
SELECT pg_temp.expect_error($$INSERT INTO toegestane_overgang VALUES (NULL, 'aangenomen', 'dubbel')$$,
                            '23505', 'pair (NULL, aangenomen) cannot be added twice (NULLS NOT DISTINCT)');

\echo '--- acceptance'
BEGIN;
SELECT pg_temp.nieuw(pg_temp.nid(1));
SELECT pg_temp.event(pg_temp.nid(1), 1, NULL, 'aangenomen');
COMMIT;
SELECT pg_temp.check((SELECT status = 'aangenomen' AND versie = 1 FROM notificatie WHERE id = pg_temp.nid(1)),
                     'insert + event volgnummer 1 in one transaction commits');

\echo 'expecting ERROR NM002 at COMMIT (insert without event):'
\set ON_ERROR_STOP 0
BEGIN;
SELECT pg_temp.nieuw(pg_temp.nid(2));
COMMIT;
\set got :SQLSTATE
\set ON_ERROR_STOP 1
SELECT pg_temp.expect_state(:'got', 'NM002', 'insert without event fails at commit');
SELECT pg_temp.check(NOT EXISTS (SELECT 1 FROM notificatie WHERE id = pg_temp.nid(2)), '... and leaves no row');

\echo 'expecting ERROR NM002 at COMMIT (event written in an earlier transaction):'
SELECT pg_temp.event(pg_temp.nid(3), 1, NULL, 'aangenomen');
\set ON_ERROR_STOP 0
BEGIN;
SELECT pg_temp.nieuw(pg_temp.nid(3));
COMMIT;
\set got :SQLSTATE
\set ON_ERROR_STOP 1
SELECT pg_temp.expect_state(:'got', 'NM002', 'event of another transaction does not count');

SELECT pg_temp.expect_error($$SELECT pg_temp.nieuw(pg_temp.nid(4), 'verzonden', 1)$$, 'NM001',
                            'insert with status other than aangenomen refused');
SELECT pg_temp.expect_error($$SELECT pg_temp.nieuw(pg_temp.nid(4), 'aangenomen', 2)$$, 'NM003',
                            'insert with versie 2 refused');

\echo '--- transitions'
BEGIN;
UPDATE notificatie SET status = 'in-verzending', versie = versie + 1 WHERE id = pg_temp.nid(1);
SELECT pg_temp.event(pg_temp.nid(1), 2, 'aangenomen', 'in-verzending');
COMMIT;
SELECT pg_temp.check((SELECT status = 'in-verzending' AND versie = 2 FROM notificatie WHERE id = pg_temp.nid(1)),
                     'update aangenomen -> in-verzending with versie + 1 and event commits');

\echo 'expecting ERROR NM002 at COMMIT (update without event):'
\set ON_ERROR_STOP 0
BEGIN;
UPDATE notificatie SET status = 'verzonden', versie = versie + 1 WHERE id = pg_temp.nid(1);
COMMIT;
\set got :SQLSTATE
\set ON_ERROR_STOP 1
SELECT pg_temp.expect_state(:'got', 'NM002', 'update in-verzending -> verzonden without event fails at commit');
SELECT pg_temp.check((SELECT status = 'in-verzending' AND versie = 2 FROM notificatie WHERE id = pg_temp.nid(1)),
                     '... and the row keeps versie 2');

\echo 'expecting ERROR NM002 at COMMIT (event with the wrong naar):'
\set ON_ERROR_STOP 0
BEGIN;
UPDATE notificatie SET status = 'verzonden', versie = versie + 1 WHERE id = pg_temp.nid(1);
SELECT pg_temp.event(pg_temp.nid(1), 3, 'in-verzending', 'technisch-mislukt');
COMMIT;
\set got :SQLSTATE
\set ON_ERROR_STOP 1
SELECT pg_temp.expect_state(:'got', 'NM002', 'event whose naar differs from the new status does not count');

-- a second notification in aangenomen for the refusals
BEGIN;
SELECT pg_temp.nieuw(pg_temp.nid(5));
SELECT pg_temp.event(pg_temp.nid(5), 1, NULL, 'aangenomen');
COMMIT;

SELECT pg_temp.expect_error(
    $$UPDATE notificatie SET status = 'bezorgd', versie = versie + 1 WHERE id = pg_temp.nid(5)$$,
    'NM001', 'disallowed pair aangenomen -> bezorgd refused');
SELECT pg_temp.expect_error(
    $$UPDATE notificatie SET status = 'in-verzending', versie = versie + 2 WHERE id = pg_temp.nid(5)$$,
    'NM003', 'versie + 2 refused');
SELECT pg_temp.expect_error(
    $$UPDATE notificatie SET versie = versie - 1 WHERE id = pg_temp.nid(1)$$,
    'NM003', 'versie - 1 refused');
SELECT pg_temp.expect_error(
    $$UPDATE notificatie SET status = 'in-verzending' WHERE id = pg_temp.nid(5)$$,
    'NM002', 'status change without versie change refused');
SELECT pg_temp.expect_error(
    $$UPDATE notificatie SET versie = versie + 1 WHERE id = pg_temp.nid(5)$$,
    'NM001', 'versie + 1 with the same status aangenomen refused (pair not allowed)');

BEGIN;
UPDATE notificatie SET datasleutel_gewrapt = NULL, geldig_tot = now() WHERE id = pg_temp.nid(5);
COMMIT;
SELECT pg_temp.check((SELECT datasleutel_gewrapt IS NULL AND versie = 1 FROM notificatie WHERE id = pg_temp.nid(5)),
                     'update touching neither status nor versie (erasure) commits without event');

BEGIN;
SELECT pg_temp.overgang(pg_temp.nid(1), 'verzonden');
COMMIT;
BEGIN;
UPDATE notificatie SET status = 'verzonden', versie = versie + 1 WHERE id = pg_temp.nid(1);
SELECT pg_temp.event(pg_temp.nid(1), 4, 'verzonden', 'verzonden');
COMMIT;
SELECT pg_temp.check((SELECT status = 'verzonden' AND versie = 4 FROM notificatie WHERE id = pg_temp.nid(1)),
                     'resend verzonden -> verzonden with versie + 1 and event commits');

BEGIN;
SELECT pg_temp.overgang(pg_temp.nid(1), 'bezorgd');
SELECT pg_temp.overgang(pg_temp.nid(1), 'verzonden');
COMMIT;
SELECT pg_temp.check((SELECT status = 'verzonden' AND versie = 6 FROM notificatie WHERE id = pg_temp.nid(1)),
                     'two transitions in one transaction, each with its event, commit');

\echo 'expecting ERROR NM002 at COMMIT (two transitions, only the last one with an event):'
\set ON_ERROR_STOP 0
BEGIN;
UPDATE notificatie SET status = 'bezorgd', versie = versie + 1 WHERE id = pg_temp.nid(1);
SELECT pg_temp.overgang(pg_temp.nid(1), 'niet-bezorgbaar');
COMMIT;
\set got :SQLSTATE
\set ON_ERROR_STOP 1
SELECT pg_temp.expect_state(:'got', 'NM002', 'each version written in a transaction needs its own event');

BEGIN;
SELECT pg_temp.overgang(pg_temp.nid(5), 'geannuleerd');
COMMIT;
SELECT pg_temp.expect_error(
    $$UPDATE notificatie SET status = 'in-verzending', versie = versie + 1 WHERE id = pg_temp.nid(5)$$,
    'NM001', 'terminal geannuleerd absorbs (geannuleerd -> in-verzending refused)');

SELECT pg_temp.check(
    (SELECT array_agg(volgnummer || ':' || coalesce(van, '-') || '>' || naar ORDER BY volgnummer)
       FROM event WHERE notificatie = pg_temp.nid(1))
    = ARRAY['1:->aangenomen', '2:aangenomen>in-verzending', '3:in-verzending>verzonden',
            '4:verzonden>verzonden', '5:verzonden>bezorgd', '6:bezorgd>verzonden'],
    'event log of notification 1 holds exactly the committed transitions');

\echo '--- event log'
SELECT pg_temp.expect_error($$UPDATE event SET reden = 'technisch' WHERE notificatie = pg_temp.nid(1)$$,
                            'NM004', 'event rows cannot be updated');
SELECT pg_temp.expect_error($$UPDATE event_p0 SET naar = 'bezorgd' WHERE notificatie = pg_temp.nid(1)$$,
                            'NM004', 'event rows cannot be updated through a partition either');
SELECT pg_temp.event(pg_temp.nid(99), 1, NULL, 'aangenomen');
DELETE FROM event WHERE notificatie = pg_temp.nid(99);
SELECT pg_temp.check(NOT EXISTS (SELECT 1 FROM event WHERE notificatie = pg_temp.nid(99)),
                     'event rows can be deleted (retention)');
SELECT pg_temp.check((SELECT bool_and(transactie_id < '20000000'::xid8 OR tableoid::regclass::text = 'event_default')
                        FROM event WHERE dv_id = pg_temp.dv()),
                     'events are routed by transactie_id');

\echo '--- receipt store'
INSERT INTO poging (id, notificatie, nummer, status, notify_id)
VALUES ('a0000000-0000-4000-8000-000000000001', pg_temp.nid(1), 1, 'verzonden', 'b0000000-0000-4000-8000-000000000001');
INSERT INTO ontvangst (poging, notify_id, status, completed_at, ontvangen_op)
VALUES ('a0000000-0000-4000-8000-000000000001', 'b0000000-0000-4000-8000-000000000001', 'delivered',
        '2026-01-01 12:00:00+01', now())
ON CONFLICT DO NOTHING;
INSERT INTO ontvangst (poging, notify_id, status, completed_at, ontvangen_op)
VALUES ('a0000000-0000-4000-8000-000000000001', 'b0000000-0000-4000-8000-000000000001', 'delivered',
        '2026-01-01 12:00:00+01', now())
ON CONFLICT DO NOTHING;
INSERT INTO ontvangst (poging, notify_id, status, completed_at, ontvangen_op)
VALUES ('a0000000-0000-4000-8000-000000000001', 'b0000000-0000-4000-8000-000000000001', 'sending', NULL, now())
ON CONFLICT DO NOTHING;
INSERT INTO ontvangst (poging, notify_id, status, completed_at, ontvangen_op)
VALUES ('a0000000-0000-4000-8000-000000000001', 'b0000000-0000-4000-8000-000000000001', 'sending', NULL, now())
ON CONFLICT DO NOTHING;
SELECT pg_temp.check((SELECT count(*) FROM ontvangst WHERE poging = 'a0000000-0000-4000-8000-000000000001') = 2,
                     'ontvangst: repeated callbacks stored once (also with completed_at NULL)');
SELECT pg_temp.expect_error(
    $$INSERT INTO ontvangst (poging, notify_id, status, completed_at, ontvangen_op)
      VALUES ('a0000000-0000-4000-8000-000000000001', 'b0000000-0000-4000-8000-000000000001', 'delivered',
              '2026-01-01 12:00:00+01', now())$$,
    '23505', 'ontvangst: a plain duplicate insert violates ontvangst_dedup_uk');

\echo '--- task table'
INSERT INTO taak (soort, dv_id, notificatie, due) VALUES ('verzenden', pg_temp.dv(), pg_temp.nid(1), now());
SELECT pg_temp.expect_error(
    $$INSERT INTO taak (soort, dv_id, notificatie, due) VALUES ('verzenden', pg_temp.dv(), pg_temp.nid(1), now())$$,
    '23505', 'taak: a second verzenden task for one notification refused (double planning)');
INSERT INTO taak (soort, dv_id, notificatie, poging, ontvangst_completed_at, due)
VALUES ('verwerken', pg_temp.dv(), pg_temp.nid(1), 'a0000000-0000-4000-8000-000000000001', '2026-01-01 12:00:00+01', now()),
       ('verwerken', pg_temp.dv(), pg_temp.nid(1), 'a0000000-0000-4000-8000-000000000001', '2026-01-01 12:05:00+01', now());
SELECT pg_temp.pass('taak: several verwerken tasks of one notification can be open');
SELECT pg_temp.expect_error(
    $$INSERT INTO taak (soort, notificatie, poging, ontvangst_completed_at, due)
      VALUES ('verwerken', pg_temp.nid(1), 'a0000000-0000-4000-8000-000000000001', '2026-01-01 12:05:00+01', now())$$,
    '23505', 'taak: verwerken unique on (poging, ontvangst_completed_at)');

\echo '--- cluster epoch'
SELECT pg_temp.check((SELECT count(*) = 1 AND min(epoch) = 1 FROM cluster_epoch), 'cluster_epoch has its single row, epoch 1');
SELECT pg_temp.expect_error($$INSERT INTO cluster_epoch (epoch) VALUES (2)$$, '23505', 'cluster_epoch stays single-row');

\echo '--- partition pruning (feed query); plans printed below'
\echo 'the feed query of the brief (cursor in event_p0):'
EXPLAIN (COSTS OFF)
SELECT * FROM event
 WHERE dv_id = 'd0000000-0000-4000-8000-000000000001' AND transactie_id >= '5'::xid8
   AND (transactie_id, id) > ('5'::xid8, 0);

BEGIN;
-- a second range partition above event_p0, as maintenance would create it (rolled back below);
-- nmc.bovengrens = event_p0's upper bound, a cursor position inside event_ptest
DO $$
DECLARE
    bovengrens text;
BEGIN
    SELECT (regexp_match(pg_get_expr(relpartbound, oid), $r$TO \('(\d+)'\)$r$))[1] INTO bovengrens
      FROM pg_class WHERE relname = 'event_p0';
    EXECUTE format('CREATE TABLE event_ptest PARTITION OF event FOR VALUES FROM (%L) TO (%L)',
                   bovengrens, (bovengrens::bigint + 10000000)::text);
    PERFORM set_config('nmc.bovengrens', bovengrens, true);
END $$;
\echo 'with a cursor beyond event_p0 (a later partition event_ptest exists):'
SELECT pg_temp.plan(format(
    $q$SELECT * FROM event WHERE dv_id = %L AND transactie_id >= %L::xid8 AND (transactie_id, id) > (%L::xid8, 0)$q$,
    pg_temp.dv(), current_setting('nmc.bovengrens'), current_setting('nmc.bovengrens')));
SELECT pg_temp.check(
    position('event_p0' IN pg_temp.plan(format(
        $q$SELECT * FROM event WHERE dv_id = %L AND transactie_id >= %L::xid8 AND (transactie_id, id) > (%L::xid8, 0)$q$,
        pg_temp.dv(), current_setting('nmc.bovengrens'), current_setting('nmc.bovengrens')))) = 0,
    'plain transactie_id >= conjunct prunes event_p0');
\echo 'without the plain conjunct (row comparison only) nothing is pruned:'
SELECT pg_temp.plan(format(
    $q$SELECT * FROM event WHERE dv_id = %L AND (transactie_id, id) > (%L::xid8, 0)$q$,
    pg_temp.dv(), current_setting('nmc.bovengrens')));
\echo 'prepared statement, generic plan (as the driver sends it): pruning at executor start'
SET LOCAL plan_cache_mode = force_generic_plan;
PREPARE feed(uuid, xid8, bigint, int) AS
    SELECT * FROM event
     WHERE dv_id = $1 AND transactie_id >= $2 AND (transactie_id, id) > ($2, $3)
       AND transactie_id < pg_snapshot_xmin(pg_current_snapshot())
     ORDER BY transactie_id, id LIMIT $4;
\echo '... cursor in event_p0: event_ptest and event_default (above the watermark) are removed'
SELECT pg_temp.plan(format('EXECUTE feed(%L, %L, 0, 100)', pg_temp.dv(), '5'));
SELECT pg_temp.check(
    (SELECT position('Subplans Removed' IN p) > 0 AND position('event_ptest' IN p) = 0
       FROM pg_temp.plan(format('EXECUTE feed(%L, %L, 0, 100)', pg_temp.dv(), '5')) p),
    'generic plan of the feed query prunes at executor start');
\echo '... cursor at the start of event_ptest (above the watermark): all subplans removed'
SELECT pg_temp.plan(format('EXECUTE feed(%L, %L, 0, 100)', pg_temp.dv(), current_setting('nmc.bovengrens')));
DEALLOCATE feed;
ROLLBACK;

SELECT pg_temp.opruimen();
SELECT pg_temp.check(NOT EXISTS (SELECT 1 FROM notificatie WHERE dv_id = pg_temp.dv()), 'test data removed');

SELECT format('trigger-checks: %s passed, 0 failed', count(*)) FROM uitslag;
