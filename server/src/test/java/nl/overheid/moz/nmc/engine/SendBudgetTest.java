package nl.overheid.moz.nmc.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.testing.TestDatabase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The send budget: a token bucket per key (the NMC's: per NotifyNL service) and minute, one statement per take,
 * a fixed reconcile share, each key with its own limit.
 */
class SendBudgetTest {

    private static final TestDatabase DB = TestDatabase.get();
    private static final Database database = DB.shared();
    private final SendBudget budget = new SendBudget(new SendBudgetRepository(), Map.of("svc", 100, "other", 40), 0.1);
    private final Instant window = Instant.parse("2026-12-01T10:15:00Z");

    @BeforeEach
    void reset() {
        DB.reset();
    }

    private int send(String key, int want, Instant now) {
        return database.inTransaction(tx -> budget.budgetTake(tx, key, TaskHandler.Budget.SENDING, want, now));
    }

    private int send(int want, Instant now) {
        return send("svc", want, now);
    }

    private int reconcile(int want, Instant now) {
        return database.inTransaction(tx -> budget.budgetTake(tx, "svc", TaskHandler.Budget.RECONCILING, want, now));
    }

    private void giveBack(String key, int tokens, Instant takenAt, Instant now) {
        database.inTransactionDo(tx -> budget.budgetReturn(tx, key, TaskHandler.Budget.SENDING, tokens, takenAt, now));
    }

    @Test
    void aWindowGrantsItsCapacityAndNotOneTokenMore() {
        assertThat(budget.capacity("svc", TaskHandler.Budget.SENDING)).isEqualTo(90);
        assertThat(budget.capacity("svc", TaskHandler.Budget.RECONCILING)).isEqualTo(10);
        assertThat(send(60, window.plusSeconds(1))).isEqualTo(60);
        assertThat(send(60, window.plusSeconds(20))).isEqualTo(30);
        assertThat(send(5, window.plusSeconds(59))).isZero();
    }

    @Test
    void reconciliationHasItsOwnShareThatSendingCannotUse() {
        assertThat(send(1000, window)).isEqualTo(90);
        assertThat(reconcile(1000, window)).isEqualTo(10);
        assertThat(reconcile(1, window)).isZero();
    }

    @Test
    void eachKeyHasItsOwnLimitAndAUsedUpKeyLeavesTheOtherWhole() {
        assertThat(send("svc", 1000, window)).isEqualTo(90);
        assertThat(send("svc", 1, window)).isZero();
        assertThat(send("other", 1000, window))
                .as("its own 40 a minute, less the reconcile share")
                .isEqualTo(36);
        assertThat(send("other", 1, window)).isZero();
    }

    @Test
    void aClosedShareGrantsNothingUntilItsEndWhileTheOthersGoOn() {
        Instant until = window.plusSeconds(3600);
        database.inTransactionDo(
                tx -> budget.close(tx, "svc", TaskHandler.Budget.SENDING, until, window, "notifynl-daglimiet"));
        assertThat(send("svc", 10, window.plusSeconds(1))).isZero();
        assertThat(send("svc", 10, until.minusSeconds(1))).isZero();
        assertThat(count("SELECT count(*) FROM verzendbudget WHERE notify_service = 'svc/sending'"))
                .as("a closed share creates no window")
                .isZero();
        assertThat(reconcile(5, window.plusSeconds(1)))
                .as("reconciliation's share stays open")
                .isEqualTo(5);
        assertThat(send("other", 10, window.plusSeconds(1))).isEqualTo(10);
        java.util.Optional<Instant> closed = database.inTransaction(
                tx -> budget.closedUntil(tx, "svc", TaskHandler.Budget.SENDING, window.plusSeconds(1)));
        assertThat(closed).contains(until);

        // an earlier end never shortens it; a later one lengthens it
        database.inTransactionDo(tx -> budget.close(
                tx, "svc", TaskHandler.Budget.SENDING, window.plusSeconds(60), window, "notifynl-daglimiet"));
        assertThat(send("svc", 10, window.plusSeconds(120))).isZero();

        assertThat(send("svc", 10, until)).as("open again at its end").isEqualTo(10);
        List<SendBudget.Closure> open = database.inTransaction(tx -> budget.closures(tx, until));
        assertThat(open).isEmpty();
        long forgotten = database.inTransaction(tx -> budget.forgetClosures(tx, until.plusSeconds(1)));
        assertThat(forgotten).isOne();
    }

    @Test
    void aKeyWithoutALimitGetsNoTokens() {
        assertThat(send("unknown", 10, window)).isZero();
        assertThat(count("SELECT count(*) FROM verzendbudget"))
                .as("and creates no bucket")
                .isZero();
    }

    /** Issue 18 §7: 5 a minute at a share of 0.1 rounded reconciliation down to 0 tokens; it always has one. */
    @Test
    void aSmallLimitStillGivesReconciliationOneTokenPerWindow() {
        SendBudget small = new SendBudget(new SendBudgetRepository(), Map.of("klein", 5), 0.1);
        assertThat(small.capacity("klein", TaskHandler.Budget.RECONCILING)).isEqualTo(1);
        assertThat(small.capacity("klein", TaskHandler.Budget.SENDING)).isEqualTo(4);
        int taken =
                database.inTransaction(tx -> small.budgetTake(tx, "klein", TaskHandler.Budget.RECONCILING, 5, window));
        assertThat(taken).isEqualTo(1);
        SendBudget noShare = new SendBudget(new SendBudgetRepository(), Map.of("svc", 100), 0);
        assertThat(noShare.capacity("svc", TaskHandler.Budget.RECONCILING))
                .as("a share of 0 still leaves reconciliation one token")
                .isEqualTo(1);
        assertThat(org.assertj.core.api.Assertions.catchThrowable(
                        () -> new SendBudget(new SendBudgetRepository(), Map.of("een", 1), 0.1)))
                .as("a limit of 1 would leave sending nothing")
                .hasMessageContaining("at least 2");
    }

    @Test
    void unusedTokensExpireWithTheWindowAndReturnedOnesCanBeTakenAgain() {
        assertThat(send(50, window)).isEqualTo(50);
        giveBack("svc", 20, window, window.plusSeconds(30));
        assertThat(send(100, window.plusSeconds(31)))
                .as("40 left plus 20 returned")
                .isEqualTo(60);
        assertThat(send(100, window.plusSeconds(60)))
                .as("a new window starts full")
                .isEqualTo(90);
    }

    @Test
    void tokensGoBackOnlyIntoTheWindowTheyCameFromAndNeverAboveItsCapacity() {
        assertThat(send(90, window.plusSeconds(50))).isEqualTo(90);
        assertThat(send(90, window.plusSeconds(65))).as("the next window's own").isEqualTo(90);
        giveBack("svc", 30, window.plusSeconds(50), window.plusSeconds(70));
        assertThat(send(100, window.plusSeconds(71)))
                .as("the first window's tokens do not go into the next")
                .isZero();
        assertThat(send(10, window.plusSeconds(40))).isZero();
        assertThat(send(10, window.plusSeconds(120))).isEqualTo(10);
        giveBack("svc", 500, window.plusSeconds(120), window.plusSeconds(121));
        assertThat(send(1000, window.plusSeconds(122)))
                .as("giving back more than was taken is capped")
                .isEqualTo(90);
    }

    @Test
    void concurrentTakesOfTwoKeysNeverGrantMoreThanEachKeysCapacity() throws Exception {
        AtomicInteger svc = new AtomicInteger();
        AtomicInteger other = new AtomicInteger();
        List<Thread> takers = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            boolean first = i % 2 == 0;
            takers.add(Thread.ofVirtual().start(() -> {
                for (int take = 0; take < 10; take++) {
                    (first ? svc : other).addAndGet(send(first ? "svc" : "other", 7, window));
                }
            }));
        }
        for (Thread taker : takers) {
            taker.join();
        }
        assertThat(svc.get()).isEqualTo(90);
        assertThat(other.get()).isEqualTo(36);
    }

    private static long count(String sql) {
        try (var c = DB.connect();
                var s = c.createStatement();
                var rows = s.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
