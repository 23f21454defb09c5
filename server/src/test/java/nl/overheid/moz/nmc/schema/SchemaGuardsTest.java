package nl.overheid.moz.nmc.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import nl.overheid.moz.nmc.lifecycle.NotificatieRepository;
import nl.overheid.moz.nmc.testing.TestDatabase;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The schema's own guards (migrations V1..V4), in plain SQL over JDBC, without the application: the status
 * triggers (NM001..NM004) and the allowed pairs, the receipt dedupe, the task uniqueness, the single-row
 * cluster epoch and the event-log partition pruning the feed relies on. Statement-time refusals are checked
 * on the statement, the deferred (commit-time) ones on {@link Connection#commit()}.
 */
class SchemaGuardsTest {

    private static final TestDatabase DB = TestDatabase.get();
    private static final UUID DV = UUID.fromString("d0000000-0000-4000-8000-000000000001");

    private Connection c;

    @BeforeEach
    void seed() throws SQLException {
        DB.reset();
        c = DB.connect();
        exec("INSERT INTO dienstverlener (id, oin, naam) VALUES ('" + DV + "', '00000000000000000042', 'schema DV')");
        exec(
                "INSERT INTO berichttype (code, notify_template_id, verwerkingsactiviteit) "
                        + "VALUES ('schema-check', gen_random_uuid(), 'https://register.example.nl/verwerkingsactiviteiten/x')");
        c.commit();
    }

    @AfterEach
    void close() throws SQLException {
        c.rollback();
        c.close();
    }

    // --- allowed pairs ------------------------------------------------------------------------------------

    @Test
    void theAllowedPairsAreExactlyTwentyOneIncludingTheAcceptanceAndTheResend() throws SQLException {
        assertThat(one("SELECT count(*) FROM toegestane_overgang")).isEqualTo("21");
        assertThat(one("SELECT count(*) FROM toegestane_overgang WHERE van IS NULL AND naar = 'aangenomen'"))
                .isEqualTo("1");
        assertThat(one("SELECT count(*) FROM toegestane_overgang WHERE van = 'verzonden' AND naar = 'verzonden'"))
                .isEqualTo("1");
    }

    @Test
    void theAcceptancePairCannotBeAddedTwiceBecauseNullsAreNotDistinct() {
        refused(
                "23505",
                "INSERT INTO toegestane_overgang VALUES (NULL, 'aangenomen', 'dubbel')",
                "toegestane_overgang_uk");
    }

    // --- acceptance ---------------------------------------------------------------------------------------

    @Test
    void anInsertWithItsFirstEventInOneTransactionCommits() throws SQLException {
        UUID id = UUID.randomUUID();
        exec(insert(id, "aangenomen", 1));
        exec(event(id, 1, null, "aangenomen"));
        c.commit();

        assertThat(status(id)).isEqualTo("aangenomen:1");
    }

    @Test
    void anInsertWithoutAnEventFailsAtCommitAndLeavesNoRow() throws SQLException {
        UUID id = UUID.randomUUID();
        exec(insert(id, "aangenomen", 1));

        refusedAtCommit("NM002");
        assertThat(status(id)).isNull();
    }

    @Test
    void anEventWrittenInAnEarlierTransactionDoesNotCount() throws SQLException {
        UUID id = UUID.randomUUID();
        exec(event(id, 1, null, "aangenomen"));
        c.commit();
        exec(insert(id, "aangenomen", 1));

        refusedAtCommit("NM002");
    }

    @Test
    void anInsertWithAStatusOtherThanAangenomenIsRefused() {
        refused("NM001", insert(UUID.randomUUID(), "verzonden", 1));
    }

    @Test
    void anInsertWithVersieTwoIsRefused() {
        refused("NM003", insert(UUID.randomUUID(), "aangenomen", 2));
    }

    // --- transitions --------------------------------------------------------------------------------------

    @Test
    void aTransitionWithVersiePlusOneAndItsEventCommits() throws SQLException {
        UUID id = accepted();
        exec("UPDATE notificatie SET status = 'in-verzending', versie = versie + 1 WHERE id = '" + id + "'");
        exec(event(id, 2, "aangenomen", "in-verzending"));
        c.commit();

        assertThat(status(id)).isEqualTo("in-verzending:2");
    }

    @Test
    void aTransitionWithoutItsEventFailsAtCommitAndTheRowKeepsItsVersion() throws SQLException {
        UUID id = accepted();
        transition(id, "in-verzending");
        c.commit();
        exec("UPDATE notificatie SET status = 'verzonden', versie = versie + 1 WHERE id = '" + id + "'");

        refusedAtCommit("NM002");
        assertThat(status(id)).isEqualTo("in-verzending:2");
    }

    @Test
    void anEventWhoseNaarDiffersFromTheNewStatusDoesNotCount() throws SQLException {
        UUID id = accepted();
        transition(id, "in-verzending");
        c.commit();
        exec("UPDATE notificatie SET status = 'verzonden', versie = versie + 1 WHERE id = '" + id + "'");
        exec(event(id, 3, "in-verzending", "technisch-mislukt"));

        refusedAtCommit("NM002");
    }

    @Test
    void aPairOutsideTheTableIsRefused() throws SQLException {
        UUID id = accepted();

        refused("NM001", "UPDATE notificatie SET status = 'bezorgd', versie = versie + 1 WHERE id = '" + id + "'");
    }

    @Test
    void aVersionStepOtherThanPlusOneIsRefused() throws SQLException {
        UUID id = accepted();
        transition(id, "in-verzending");
        c.commit();

        refused("NM003", "UPDATE notificatie SET status = 'verzonden', versie = versie + 2 WHERE id = '" + id + "'");
        refused("NM003", "UPDATE notificatie SET versie = versie - 1 WHERE id = '" + id + "'");
    }

    @Test
    void aStatusChangeWithoutAVersionChangeIsRefused() throws SQLException {
        UUID id = accepted();

        refused("NM002", "UPDATE notificatie SET status = 'in-verzending' WHERE id = '" + id + "'");
    }

    @Test
    void aVersionChangeThatKeepsStatusAangenomenIsRefusedAsAPairNotAllowed() throws SQLException {
        UUID id = accepted();

        refused("NM001", "UPDATE notificatie SET versie = versie + 1 WHERE id = '" + id + "'");
    }

    @Test
    void anUpdateTouchingNeitherStatusNorVersieCommitsWithoutAnEvent() throws SQLException {
        UUID id = accepted();
        exec("UPDATE notificatie SET datasleutel_gewrapt = NULL, geldig_tot = now() WHERE id = '" + id + "'");
        c.commit();

        assertThat(one("SELECT datasleutel_gewrapt IS NULL FROM notificatie WHERE id = '" + id + "'"))
                .isEqualTo("t");
        assertThat(status(id)).isEqualTo("aangenomen:1");
    }

    @Test
    void theResendVerzondenToVerzondenCommitsWithVersiePlusOneAndItsEvent() throws SQLException {
        UUID id = accepted();
        transition(id, "in-verzending");
        transition(id, "verzonden");
        c.commit();
        exec("UPDATE notificatie SET status = 'verzonden', versie = versie + 1 WHERE id = '" + id + "'");
        exec(event(id, 4, "verzonden", "verzonden"));
        c.commit();

        assertThat(status(id)).isEqualTo("verzonden:4");
    }

    @Test
    void twoTransitionsInOneTransactionEachWithItsEventCommit() throws SQLException {
        UUID id = accepted();
        transition(id, "in-verzending");
        transition(id, "verzonden");
        c.commit();
        transition(id, "bezorgd");
        transition(id, "verzonden");
        c.commit();

        assertThat(status(id)).isEqualTo("verzonden:5");
    }

    @Test
    void eachVersionWrittenInATransactionNeedsItsOwnEvent() throws SQLException {
        UUID id = accepted();
        transition(id, "in-verzending");
        transition(id, "verzonden");
        c.commit();
        exec("UPDATE notificatie SET status = 'bezorgd', versie = versie + 1 WHERE id = '" + id + "'");
        transition(id, "niet-bezorgbaar");

        refusedAtCommit("NM002");
        assertThat(status(id)).isEqualTo("verzonden:3");
    }

    @Test
    void theTerminalStatusGeannuleerdAbsorbs() throws SQLException {
        UUID id = accepted();
        transition(id, "geannuleerd");
        c.commit();

        refused(
                "NM001",
                "UPDATE notificatie SET status = 'in-verzending', versie = versie + 1" + " WHERE id = '" + id + "'");
    }

    @Test
    void theEventLogHoldsExactlyTheCommittedTransitions() throws SQLException {
        UUID id = accepted();
        transition(id, "in-verzending");
        c.commit();
        exec("UPDATE notificatie SET status = 'verzonden', versie = versie + 1 WHERE id = '" + id + "'");
        refusedAtCommit("NM002");
        transition(id, "verzonden");
        c.commit();
        transition(id, "verzonden");
        c.commit();
        transition(id, "bezorgd");
        transition(id, "verzonden");
        c.commit();
        exec("UPDATE notificatie SET status = 'bezorgd', versie = versie + 1 WHERE id = '" + id + "'");
        transition(id, "niet-bezorgbaar");
        refusedAtCommit("NM002");

        assertThat(column("SELECT volgnummer || ':' || coalesce(van, '-') || '>' || naar FROM event"
                        + " WHERE notificatie = '" + id + "' ORDER BY volgnummer"))
                .containsExactly(
                        "1:->aangenomen",
                        "2:aangenomen>in-verzending",
                        "3:in-verzending>verzonden",
                        "4:verzonden>verzonden",
                        "5:verzonden>bezorgd",
                        "6:bezorgd>verzonden");
    }

    // --- event log ----------------------------------------------------------------------------------------

    @Test
    void eventRowsCannotBeUpdatedNotEvenThroughAPartition() throws SQLException {
        UUID id = accepted();

        refused("NM004", "UPDATE event SET reden = 'technisch' WHERE notificatie = '" + id + "'");
        refused("NM004", "UPDATE event_p0 SET naar = 'bezorgd' WHERE notificatie = '" + id + "'");
    }

    @Test
    void eventRowsCanBeDeletedForRetention() throws SQLException {
        UUID id = UUID.randomUUID();
        exec(event(id, 1, null, "aangenomen"));
        c.commit();

        exec("DELETE FROM event WHERE notificatie = '" + id + "'");
        c.commit();
        assertThat(one("SELECT count(*) FROM event WHERE notificatie = '" + id + "'"))
                .isEqualTo("0");
    }

    @Test
    void eventsAreRoutedToTheRangePartitionOfTheirTransactionId() throws SQLException {
        accepted();
        accepted();

        assertThat(column("""
                SELECT e.tableoid::regclass::text || ' '
                       || coalesce(e.transactie_id::text::bigint BETWEEN b.vanaf::bigint AND b.tot::bigint - 1, false)
                  FROM event e
                  JOIN pg_class p ON p.oid = e.tableoid
                  CROSS JOIN LATERAL regexp_match(pg_get_expr(p.relpartbound, p.oid),
                                                  'FROM \\(''(\\d+)''\\) TO \\(''(\\d+)''\\)') AS m
                  CROSS JOIN LATERAL (SELECT m[1] AS vanaf, m[2] AS tot) b
                 WHERE e.dv_id = '%s'
                """.formatted(DV))).hasSize(2).allMatch(row -> row.matches("event_p\\d+ true"));
    }

    // --- storage: a status change rewrites no index (V23) ----------------------------------------------------

    @Test
    void theTransitionsOfANotificationUnderWayUpdateItsRowInPlaceWithoutNewIndexEntries() throws SQLException {
        UUID id = accepted();
        transition(id, "in-verzending");
        transition(id, "verzonden");
        transition(id, "bezorgd");
        // this transaction's own counts, exact and at once (pg_stat_user_tables lags)
        assertThat(one("""
                        SELECT n_tup_upd || ' ' || n_tup_hot_upd FROM pg_stat_xact_user_tables
                         WHERE relid = 'notificatie'::regclass
                        """)).isEqualTo("3 3");
        c.commit();
        assertThat(status(id)).isEqualTo("bezorgd:4");
    }

    @Test
    void noIndexOfTheNotificationNamesItsStatus() throws SQLException {
        // a status in any index's key or predicate makes every transition write a new entry into every index
        assertThat(column("""
                SELECT i.indexrelid::regclass::text FROM pg_index i
                 WHERE i.indrelid = 'notificatie'::regclass
                   AND (pg_get_indexdef(i.indexrelid) ~ '\\mstatus\\M')
                """)).isEmpty();
    }

    @Test
    void theControlDutysScanOfNotificationsUnderWayCanUseItsIndex() throws SQLException {
        exec("SET LOCAL enable_seqscan = off");
        assertThat(plan("SELECT id FROM notificatie n WHERE n.status = 'bezorgd' AND n.terminaal_sinds IS NULL"))
                .contains("notificatie_onderweg_idx");
        assertThat(plan("SELECT count(*) FROM notificatie WHERE bezorgstatus_onbekend"))
                .contains("notificatie_onbekend_idx");
    }

    // --- storage: a notification's events under one key (V25) ---------------------------------------------

    @Test
    void theEventLogIndexesANotificationsEventsUnderOneKeyThatItsReadersUse() throws SQLException {
        assertThat(column("""
                SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i
                 WHERE i.indrelid = 'event_p0'::regclass AND pg_get_indexdef(i.indexrelid) ~ '\\mnotificatie\\M'
                """))
                .containsExactly("CREATE INDEX event_p0_notificatie_idx ON public.event_p0 USING btree (notificatie)");
        exec("SET LOCAL enable_seqscan = off");
        assertThat(plan("SELECT e.volgnummer FROM event e WHERE e.notificatie = '" + UUID.randomUUID() + "'"))
                .as("a notification's events")
                .contains("event_p0_notificatie_idx");
    }

    @Test
    void fiveEventsOfANotificationCostTheIndexOneKeyNotFive() throws SQLException {
        long before = eventIndexBytes("notificatie");
        // 2,000 notifications' five events written as a steady run writes them: every first event, then every second…
        exec("""
                WITH n AS MATERIALIZED (SELECT gen_random_uuid() AS id FROM generate_series(1, 2000))
                INSERT INTO event (dv_id, notificatie, volgnummer, naar)
                SELECT '%s', n.id, k, 'aangenomen' FROM generate_series(1, 5) k, n ORDER BY k
                """.formatted(DV));
        long perNotification = (eventIndexBytes("notificatie") - before) / 2000;
        // an entry per event is 5 × 36 bytes on full pages, and random keys leave pages about 70 % full (260 measured)
        assertThat(perNotification).as("index bytes per notification").isLessThan(130);
    }

    // --- erasure planned when due (V27) ---------------------------------------------------------------------

    @Test
    void theScanForDueErasuresReadsOnlyTerminalNotificationsThatStillHaveTheirKey() throws SQLException {
        exec("SET LOCAL enable_seqscan = off");
        assertThat(plan("SELECT id FROM notificatie n WHERE n.terminaal_sinds <= now() - interval '30 days'"
                        + " AND n.datasleutel_gewrapt IS NOT NULL ORDER BY n.terminaal_sinds LIMIT 500"))
                .contains("notificatie_te_wissen_idx");
        assertThat(one("""
                        SELECT pg_get_expr(i.indpred, i.indrelid) FROM pg_index i
                         WHERE i.indexrelid = 'notificatie_te_wissen_idx'::regclass
                        """))
                .as("erased notifications, kept for years, and live ones leave the index")
                .isEqualTo("((terminaal_sinds IS NOT NULL) AND (datasleutel_gewrapt IS NOT NULL))");
    }

    // --- storage: the feed's index stays full (V26) ----------------------------------------------------------

    @Test
    void aDvsFeedIsReadThroughTheFeedIndexInCommitOrder() throws SQLException {
        exec("SET LOCAL enable_seqscan = off");
        exec("SET LOCAL enable_bitmapscan = off");
        String feed = plan("SELECT e.id FROM event e WHERE "
                + NotificatieRepository.eventsOfDv("e", "CAST('" + DV + "' AS uuid)")
                + " AND e.transactie_id >= '5' AND (e.transactie_id, e.id) > ('5', 0)"
                + " ORDER BY e.transactie_id, e.id LIMIT 100");
        assertThat(feed).as(feed).contains("Index Cond: ((uuid_hash(dv_id) = ");
    }

    @Test
    void twoDvsWhoseFeedKeysCollideEachReadOnlyTheirOwnEvents() throws SQLException {
        // two ids with one uuid_hash, found among 300,000 random ones (PostgreSQL's hash, as on this little-endian CI)
        String first = "3ed4a7fe-cfec-4ac4-8bbe-cf84693def16";
        String second = "f10af708-49c6-499f-a794-749434a16bc3";
        assertThat(one("SELECT uuid_hash('%s') = uuid_hash('%s')".formatted(first, second)))
                .as("the pair still collides")
                .isEqualTo("t");
        exec("""
                INSERT INTO event (dv_id, notificatie, volgnummer, naar)
                VALUES ('%1$s', gen_random_uuid(), 1, 'aangenomen'), ('%2$s', gen_random_uuid(), 1, 'aangenomen'),
                       ('%2$s', gen_random_uuid(), 1, 'aangenomen')
                """.formatted(first, second));
        java.util.function.Function<String, String> ofDv = dv -> "SELECT CAST(e.dv_id AS text) FROM event e WHERE "
                + NotificatieRepository.eventsOfDv("e", "CAST('" + dv + "' AS uuid)");
        assertThat(column(ofDv.apply(first))).containsExactly(first);
        assertThat(column(ofDv.apply(second))).containsExactly(second, second);
    }

    @Test
    void theFeedIndexStaysFullWhileEachDvsEventsArriveAtTheEndOfItsOwnRange() throws SQLException {
        long before = eventIndexBytes("dv_id");
        // ten DVs' events in ascending transactions, one or two each, interleaved as the engine commits them
        exec("""
                WITH dv AS MATERIALIZED (SELECT k, gen_random_uuid() AS id FROM generate_series(0, 9) k)
                INSERT INTO event (transactie_id, dv_id, notificatie, volgnummer, naar)
                SELECT CAST(CAST(g / 2 AS text) AS xid8), dv.id, gen_random_uuid(), 1, 'aangenomen'
                  FROM generate_series(1, 20000) g JOIN dv ON dv.k = g % 10 ORDER BY g
                """);
        long perEvent = (eventIndexBytes("dv_id") - before) / 20000;
        // keyed on (dv_id, transactie_id, id) this pattern cost 85 bytes an event: every split left a half-empty page
        assertThat(perEvent).as("feed index bytes per event").isLessThan(45);
    }

    // --- receipt store ------------------------------------------------------------------------------------

    @Test
    void repeatedCallbacksAreStoredOnceAlsoWithoutCompletedAt() throws SQLException {
        UUID poging = insertPoging(accepted());
        for (int i = 0; i < 2; i++) {
            exec(receipt(poging, "delivered", "'2026-01-01 12:00:00+01'") + " ON CONFLICT DO NOTHING");
            exec(receipt(poging, "sending", "NULL") + " ON CONFLICT DO NOTHING");
        }
        c.commit();

        assertThat(one("SELECT count(*) FROM ontvangst WHERE poging = '" + poging + "'"))
                .isEqualTo("2");
    }

    @Test
    void aPlainDuplicateReceiptViolatesTheDedupeKey() throws SQLException {
        UUID poging = insertPoging(accepted());
        exec(receipt(poging, "delivered", "'2026-01-01 12:00:00+01'"));

        refused("23505", receipt(poging, "delivered", "'2026-01-01 12:00:00+01'"), "ontvangst_dedup_uk");
    }

    // --- task table ---------------------------------------------------------------------------------------

    @Test
    void aSecondSendTaskForOneNotificationIsRefused() throws SQLException {
        UUID id = accepted();
        String task = "INSERT INTO taak (soort, dv_id, notificatie, due, budget) VALUES ('verzenden', '" + DV + "', '"
                + id + "', now(), 'standaard')";
        exec(task);

        refused("23505", task, "taak_notificatie_soort_uk");
    }

    @Test
    void aTaskOfAKindThatCallsNotifyNlNamesTheBudgetItSpends() throws SQLException {
        UUID id = accepted();
        for (String kind : new String[] {"verzenden", "reconcilieren"}) {
            refused(
                    "23514",
                    "INSERT INTO taak (soort, dv_id, notificatie, due) VALUES ('" + kind + "', '" + DV + "', '" + id
                            + "', now())",
                    "taak_budget_ck");
        }
        exec("INSERT INTO taak (soort, dv_id, notificatie, due) VALUES ('vaststellen', '" + DV + "', '" + id
                + "', now())");
    }

    @Test
    void severalReceiptTasksOfOneAttemptCanBeOpenEvenForOneCompletedAtButOnlyOnePerReceipt() throws SQLException {
        UUID id = accepted();
        UUID poging = insertPoging(id);
        // two receipts of one attempt and one completed_at: the e-mail and its duplicate under another NotifyNL id
        long first = receiptId(poging, "b0000000-0000-4000-8000-000000000001");
        long second = receiptId(poging, "b0000000-0000-4000-8000-000000000002");
        String task = "INSERT INTO taak (soort, dv_id, notificatie, poging, ontvangst, ontvangst_completed_at, due) "
                + "VALUES ('verwerken', '" + DV + "', '" + id + "', '" + poging + "', %s, "
                + "'2026-01-01 12:00:00+01', now())";
        exec(task.formatted(first));
        exec(task.formatted(second));
        c.commit();

        assertThat(one("SELECT count(*) FROM taak WHERE soort = 'verwerken' AND notificatie = '" + id + "'"))
                .isEqualTo("2");
        refused("23505", task.formatted(second), "taak_verwerken_uk");
        refused("23514", task.formatted("NULL"), "taak_verwerken_ontvangst_ck");
        // only a receipt task names a receipt, so one unique index over every named receipt serves the cascade too
        refused(
                "23514",
                "INSERT INTO taak (soort, dv_id, notificatie, poging, ontvangst, due, budget) VALUES ('reconcilieren', '"
                        + DV + "', '" + id + "', '" + poging + "', " + first + ", now(), 'standaard')",
                "taak_ontvangst_verwerken_ck");
        assertThat(one("SELECT count(*) FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid"
                        + " JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = i.indkey[0]"
                        + " WHERE t.relname = 'taak' AND a.attname = 'ontvangst'"))
                .as("one index on taak.ontvangst")
                .isEqualTo("1");
        exec("SET LOCAL enable_seqscan = off");
        assertThat(plan("DELETE FROM taak WHERE ontvangst = " + first))
                .as("the cascade from ontvangst finds its tasks by index")
                .contains("taak_verwerken_uk");
    }

    private long receiptId(UUID poging, String notifyId) throws SQLException {
        return Long.parseLong(
                one("INSERT INTO ontvangst (poging, notify_id, status, completed_at, ontvangen_op) VALUES ('" + poging
                        + "', '" + notifyId + "', 'delivered', '2026-01-01 12:00:00+01', now()) RETURNING id"));
    }

    // --- cluster epoch ------------------------------------------------------------------------------------

    @Test
    void theClusterEpochIsOneSingleRowStartingAtOne() throws SQLException {
        assertThat(column("SELECT epoch FROM cluster_epoch")).containsExactly("1");
        refused("23505", "INSERT INTO cluster_epoch (epoch) VALUES (2)", "cluster_epoch_pkey");
    }

    // --- partition pruning of the feed query --------------------------------------------------------------

    @Test
    void thePlainTransactionIdConjunctOfTheFeedQueryPrunesTheEarlierPartitions() throws SQLException {
        List<String> earlier = rangePartitions();
        String cursor = partitionAboveTheRest();

        String withConjunct = plan("SELECT * FROM event WHERE dv_id = '" + DV + "' AND transactie_id >= '" + cursor
                + "'::xid8 AND (transactie_id, id) > ('" + cursor + "'::xid8, 0)");
        String rowComparisonOnly = plan(
                "SELECT * FROM event WHERE dv_id = '" + DV + "' AND (transactie_id, id) > ('" + cursor + "'::xid8, 0)");

        assertThat(withConjunct).contains(" on event_ptest ");
        assertThat(earlier).allSatisfy(partition -> assertThat(withConjunct).doesNotContain(" on " + partition + " "));
        assertThat(rowComparisonOnly)
                .as("a row comparison alone prunes nothing: why the feed has the conjunct")
                .contains(" on event_p0 ", " on event_ptest ");
    }

    @Test
    void theGenericPlanOfTheFeedQueryPrunesAtExecutorStart() throws SQLException {
        String laterPartition = partitionAboveTheRest();
        exec("SET LOCAL plan_cache_mode = force_generic_plan");
        exec("""
                PREPARE feed(uuid, xid8, bigint, int) AS
                    SELECT * FROM event
                     WHERE dv_id = $1 AND transactie_id >= $2 AND (transactie_id, id) > ($2, $3)
                       AND transactie_id < pg_snapshot_xmin(pg_current_snapshot())
                     ORDER BY transactie_id, id LIMIT $4
                """);
        String inFirstPartition = plan("EXECUTE feed('" + DV + "', '5', 0, 100)");
        String aboveTheWatermark = plan("EXECUTE feed('" + DV + "', '" + laterPartition + "', 0, 100)");

        assertThat(inFirstPartition)
                .as("a generic plan: the parameters are not folded in")
                .contains("dv_id = $1");
        assertThat(inFirstPartition)
                .contains("Subplans Removed", " on event_p0 ")
                .doesNotContain("event_ptest");
        assertThat(aboveTheWatermark)
                .as("a cursor above the watermark reads no partition at all")
                .contains("Subplans Removed")
                .doesNotContain(" on event_");
    }

    // --- temporary tables ---------------------------------------------------------------------------------

    /**
     * The guard's trigger functions read their own schema's tables whatever temporary tables the session has: with an
     * unpinned search_path a temporary toegestane_overgang allowing aangenomen → definitief-bezorgd shadowed the real
     * one inside the trigger (the runtime role may make none at all any more: RuntimeRoleTest).
     */
    @Test
    void aTemporaryTransitionTableDoesNotShadowTheRealOneInsideTheTrigger() throws SQLException {
        UUID id = accepted();
        exec("CREATE TEMP TABLE toegestane_overgang (van text, naar text, oorzaak text) ON COMMIT DROP");
        exec("INSERT INTO toegestane_overgang VALUES ('aangenomen', 'definitief-bezorgd', 'buit')");

        refused("NM001", "UPDATE notificatie SET status = 'definitief-bezorgd', versie = 2 WHERE id = '" + id + "'");
    }

    /** Nor does a temporary event table stand in for the event a transition must write. */
    @Test
    void aTemporaryEventTableDoesNotStandInForTheTransitionsEvent() throws SQLException {
        UUID id = accepted();
        exec("CREATE TEMP TABLE event (LIKE event INCLUDING DEFAULTS INCLUDING IDENTITY) ON COMMIT DROP");
        exec(event(id, 2, "aangenomen", "in-verzending"));
        exec("UPDATE notificatie SET status = 'in-verzending', versie = 2 WHERE id = '" + id + "'");

        refusedAtCommit("NM002");
        assertThat(status(id)).isEqualTo("aangenomen:1");
    }

    // --- helpers ------------------------------------------------------------------------------------------

    private String insert(UUID id, String status, int version) {
        return """
                INSERT INTO notificatie (id, dv_id, dvref_hmac, pepper_versie, payload_hmac, payload_pepper_versie,
                                         berichttype, regie,
                                         status, versie, ontvanger_versleuteld, personalisatie_versleuteld,
                                         datasleutel_gewrapt, kek_versie, trace_id, aangenomen_op)
                VALUES ('%1$s', '%2$s', sha256('%1$s'::bytea), 1, sha256('p%1$s'::bytea), 1, 'schema-check', 'decentraal',
                        '%3$s', %4$d, '\\x01', '\\x02', '\\x03', 1, '0af7651916cd43dd8448eb211c80319c', now())
                """.formatted(id, DV, status, version);
    }

    private String event(UUID id, int volgnummer, String from, String to) {
        return "INSERT INTO event (tijdstip, dv_id, notificatie, volgnummer, van, naar) VALUES (now(), '" + DV + "', '"
                + id + "', " + volgnummer + ", " + (from == null ? "NULL" : "'" + from + "'") + ", '" + to + "')";
    }

    private String receipt(UUID poging, String status, String completedAt) {
        return "INSERT INTO ontvangst (poging, notify_id, status, completed_at, ontvangen_op) VALUES ('" + poging
                + "', 'b0000000-0000-4000-8000-000000000001', '" + status + "', " + completedAt + ", now())";
    }

    /** A committed notification in status aangenomen, versie 1, with its first event. */
    private UUID accepted() throws SQLException {
        UUID id = UUID.randomUUID();
        exec(insert(id, "aangenomen", 1));
        exec(event(id, 1, null, "aangenomen"));
        c.commit();
        return id;
    }

    /** What the transition function does, uncommitted: lock, versie + 1, the event. */
    private void transition(UUID id, String to) throws SQLException {
        String[] current = one("SELECT status || ' ' || versie FROM notificatie WHERE id = '" + id + "' FOR UPDATE")
                .split(" ");
        int version = Integer.parseInt(current[1]) + 1;
        exec("UPDATE notificatie SET status = '" + to + "', versie = " + version + " WHERE id = '" + id + "'");
        exec(event(id, version, current[0], to));
    }

    /** A committed first attempt of the notification. */
    private UUID insertPoging(UUID notificatie) throws SQLException {
        UUID poging = UUID.randomUUID();
        exec("INSERT INTO poging (id, notificatie, nummer, status, notify_id) VALUES ('" + poging + "', '" + notificatie
                + "', 1, 'verzonden', 'b0000000-0000-4000-8000-000000000001')");
        c.commit();
        return poging;
    }

    /**
     * Creates (uncommitted; rolled back after the test) a range partition event_ptest above every existing one,
     * as maintenance would, and returns its lower bound. Above, not after event_p0: other tests in this JVM may
     * have added partitions already.
     */
    private String partitionAboveTheRest() throws SQLException {
        String upper = one("""
                SELECT max((regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \\(''(\\d+)''\\)'))[1]::bigint)
                  FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                 WHERE i.inhparent = 'event'::regclass AND pg_get_expr(c.relpartbound, c.oid) <> 'DEFAULT'
                """);
        exec("CREATE TABLE event_ptest PARTITION OF event FOR VALUES FROM ('%s') TO ('%d')"
                .formatted(upper, Long.parseLong(upper) + 10_000_000));
        return upper;
    }

    private List<String> rangePartitions() throws SQLException {
        return column("""
                SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                 WHERE i.inhparent = 'event'::regclass AND pg_get_expr(c.relpartbound, c.oid) <> 'DEFAULT'
                """);
    }

    /** The size of the first partition's index whose definition names the column (found so, whatever its name). */
    private long eventIndexBytes(String column) throws SQLException {
        return Long.parseLong(one("""
                SELECT pg_relation_size(i.indexrelid) FROM pg_index i
                 WHERE i.indrelid = 'event_p0'::regclass AND pg_get_indexdef(i.indexrelid) ~ '\\m%s\\M'
                """.formatted(column)));
    }

    private String plan(String query) throws SQLException {
        return String.join("\n", column("EXPLAIN (COSTS OFF) " + query)) + "\n";
    }

    private String status(UUID id) throws SQLException {
        return one("SELECT status || ':' || versie FROM notificatie WHERE id = '" + id + "'");
    }

    /** The statement fails with the SQLSTATE (and, where given, names the constraint); the transaction goes on. */
    private void refused(String sqlState, String sql, String... inMessage) {
        try {
            Savepoint before = c.setSavepoint();
            assertRefused(() -> exec(sql), sqlState, inMessage);
            c.rollback(before);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The deferred trigger refuses the transaction at commit. */
    private void refusedAtCommit(String sqlState) {
        assertRefused(c::commit, sqlState);
    }

    private static void assertRefused(ThrowingCallable action, String sqlState, String... inMessage) {
        var refusal = assertThatThrownBy(action)
                .isInstanceOf(SQLException.class)
                .satisfies(e -> assertThat(((SQLException) e).getSQLState())
                        .as(e.getMessage())
                        .isEqualTo(sqlState));
        for (String part : inMessage) {
            refusal.hasMessageContaining(part);
        }
    }

    private void exec(String sql) throws SQLException {
        try (Statement statement = c.createStatement()) {
            statement.execute(sql);
        }
    }

    private String one(String query) throws SQLException {
        List<String> rows = column(query);
        return rows.isEmpty() ? null : rows.getFirst();
    }

    private List<String> column(String query) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Statement statement = c.createStatement();
                ResultSet result = statement.executeQuery(query)) {
            while (result.next()) {
                rows.add(result.getString(1));
            }
        }
        return rows;
    }
}
