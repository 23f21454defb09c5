package nl.overheid.moz.nmc.flow;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import nl.overheid.moz.nmc.engine.TaskKind;
import nl.overheid.moz.nmc.testing.ManualRunner;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The steps that are the database's work alone (applying stored receipts, finalising) run a claimed batch in one
 * transaction (issue 20), through the transition function as before: each notification still gets its own event,
 * version and trigger check, and a batch that fails leaves each of its tasks to run on its own, so one bad member
 * takes no other down with it. That the batch was one transaction shows in the events' {@code xmin}.
 */
class BatchedStepsTest extends LifecycleTestBase {

    private static final int COUNT = 12;

    @AfterEach
    void dropTheFault() {
        sql("DROP TRIGGER IF EXISTS test_refuse_one ON event");
        sql("DROP FUNCTION IF EXISTS test_refuse_one()");
    }

    @Test
    void storedReceiptsAndFinalisingOfManyNotificationsEachRunInOneTransactionWithAnEventPerNotification() {
        List<UUID> ids = sentNotifications();
        for (UUID id : ids) {
            assertThat(postReceipt(receiptBody(id, 1, "delivered")).status()).isEqualTo(200);
        }
        assertThat(ManualRunner.of(nmc).runWorkerOnce(TaskKind.VERWERKEN)).isEqualTo(COUNT);
        assertThat(ids).allSatisfy(id -> assertThat(status(id)).isEqualTo("bezorgd:4"));
        assertThat(transactionsThatWrote("bezorgd"))
                .as("the receipts of the whole batch were applied in one transaction")
                .isEqualTo(1);

        clock.advance(Duration.ofDays(7).plusMinutes(26));
        assertThat(ManualRunner.of(nmc).runWorkerOnce(TaskKind.VASTSTELLEN)).isEqualTo(COUNT);
        assertThat(ids).allSatisfy(id -> assertThat(status(id)).isEqualTo("definitief-bezorgd:5"));
        assertThat(transactionsThatWrote("definitief-bezorgd")).isEqualTo(1);
        assertThat(query(
                        "SELECT count(*) FROM event WHERE dv_id = (SELECT dv_id FROM notificatie WHERE id = ?)",
                        ids.getFirst()))
                .as("five events each, one per transition")
                .containsExactly(String.valueOf(5 * COUNT));
        assertThat(query(
                        "SELECT count(*) || ' ' || count(terminaal_sinds) FROM notificatie WHERE dv_id ="
                                + " (SELECT dv_id FROM notificatie WHERE id = ?)",
                        ids.getFirst()))
                .as("each notification's terminal time written: the timer of its erasure")
                .containsExactly(COUNT + " " + COUNT);
        assertThat(query(
                        "SELECT count(*) FROM taak WHERE dv_id = (SELECT dv_id FROM notificatie WHERE id = ?)",
                        ids.getFirst()))
                .as("no task left")
                .containsExactly("0");
    }

    @Test
    void aBatchWithOneMemberTheDatabaseRefusesFinalisesTheOthersAndCountsTheFailureOnlyOnThatOne() {
        List<UUID> ids = deliveredNotifications();
        UUID refused = ids.get(COUNT / 2);
        // A fault only this notification meets: its final event is refused, as a constraint would refuse it.
        sql("CREATE FUNCTION test_refuse_one() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                + " IF NEW.notificatie = '" + refused + "' AND NEW.naar = 'definitief-bezorgd' THEN"
                + " RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$");
        sql("CREATE TRIGGER test_refuse_one BEFORE INSERT ON event FOR EACH ROW EXECUTE FUNCTION test_refuse_one()");

        clock.advance(Duration.ofDays(7).plusMinutes(26));
        assertThat(ManualRunner.of(nmc).runWorkerOnce(TaskKind.VASTSTELLEN)).isEqualTo(COUNT);

        List<UUID> others = new ArrayList<>(ids);
        others.remove(refused);
        assertThat(others).allSatisfy(id -> assertThat(status(id)).isEqualTo("definitief-bezorgd:5"));
        assertThat(status(refused)).isEqualTo("bezorgd:4");
        assertThat(query("SELECT pogingenteller FROM taak WHERE notificatie = ? AND soort = 'vaststellen'", refused))
                .as("the failure is counted on the member it is about, once")
                .containsExactly("1");
        assertThat(query(
                        "SELECT count(*) FROM taak WHERE soort = 'vaststellen' AND pogingenteller > 0 AND dv_id ="
                                + " (SELECT dv_id FROM notificatie WHERE id = ?)",
                        refused))
                .containsExactly("1");

        dropTheFault();
        clock.advance(Duration.ofMinutes(20));
        ManualRunner.of(nmc).runWorkerOnce(TaskKind.VASTSTELLEN);
        assertThat(status(refused)).isEqualTo("definitief-bezorgd:5");
    }

    @Test
    void aMemberWhoseReceiptIsStillOpenWaitsWhileTheRestOfItsBatchIsFinalised() {
        List<UUID> ids = deliveredNotifications();
        UUID waiting = ids.getFirst();
        clock.advance(Duration.ofDays(7).plusMinutes(26));
        // a failure receipt stored (not yet applied) within the period: finalising must not overtake it
        assertThat(postReceipt(receiptBody(
                                waiting,
                                1,
                                "permanent-failure",
                                notifyId(waiting, 1),
                                clock.instant().minus(Duration.ofDays(1))))
                        .status())
                .isEqualTo(200);

        assertThat(ManualRunner.of(nmc).runWorkerOnce(TaskKind.VASTSTELLEN)).isEqualTo(COUNT);

        assertThat(ids.subList(1, COUNT))
                .allSatisfy(id -> assertThat(status(id)).isEqualTo("definitief-bezorgd:5"));
        assertThat(status(waiting)).isEqualTo("bezorgd:4");
        assertThat(query("SELECT laatste_fout FROM taak WHERE notificatie = ? AND soort = 'vaststellen'", waiting))
                .containsExactly("ontvangst-open");
    }

    /** {@value #COUNT} notifications sent and delivered (bezorgd, their finalising due after the MEBV period). */
    private List<UUID> deliveredNotifications() {
        List<UUID> ids = sentNotifications();
        for (UUID id : ids) {
            assertThat(postReceipt(receiptBody(id, 1, "delivered")).status()).isEqualTo(200);
        }
        ManualRunner.of(nmc).runWorkerOnce(TaskKind.VERWERKEN);
        return ids;
    }

    /** {@value #COUNT} notifications accepted and sent (verzonden, attempt 1 at NotifyNL). */
    private List<UUID> sentNotifications() {
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < COUNT; i++) {
            ids.add(accept("batch-" + i, Map.of()));
        }
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(ids).allSatisfy(id -> assertThat(status(id)).isEqualTo("verzonden:3"));
        return ids;
    }

    /** How many transactions wrote the events that moved a notification to {@code naar}. */
    private static long transactionsThatWrote(String naar) {
        return Long.parseLong(DB.query("SELECT count(DISTINCT CAST(xmin AS text)) FROM event WHERE naar = ?", naar)
                .getFirst());
    }
}
