package nl.overheid.moz.nmc.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.testing.TestDatabase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The send budget: a token bucket per service and minute, one statement per take, a fixed reconcile share. */
class SendBudgetTest {

    private static final TestDatabase DB = TestDatabase.get();
    private static final Database database = DB.shared();
    private final SendBudget budget = new SendBudget(100, 0.1);
    private final Instant window = Instant.parse("2026-12-01T10:15:00Z");

    @BeforeEach
    void reset() {
        DB.reset();
    }

    private int send(int want, Instant now) {
        return database.inTransaction(tx -> budget.budgetTakeForSending(tx, "svc", want, now));
    }

    private int reconcile(int want, Instant now) {
        return database.inTransaction(tx -> budget.budgetTakeForReconciling(tx, "svc", want, now));
    }

    @Test
    void aWindowGrantsItsCapacityAndNotOneTokenMore() {
        assertThat(budget.sendCapacity()).isEqualTo(90);
        assertThat(budget.reconcileCapacity()).isEqualTo(10);
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
    void unusedTokensExpireWithTheWindowAndReturnedOnesCanBeTakenAgain() {
        assertThat(send(50, window)).isEqualTo(50);
        database.inTransactionDo(tx -> budget.budgetReturn(tx, "svc", TaskHandler.Budget.SENDING, 20, window));
        assertThat(send(100, window)).as("40 left plus 20 returned").isEqualTo(60);
        assertThat(send(100, window.plusSeconds(60))).as("a new window starts full").isEqualTo(90);
    }

    @Test
    void concurrentTakesNeverGrantMoreThanTheCapacity() throws Exception {
        AtomicInteger granted = new AtomicInteger();
        List<Thread> takers = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            takers.add(Thread.ofVirtual().start(() -> {
                for (int take = 0; take < 10; take++) {
                    granted.addAndGet(send(7, window));
                }
            }));
        }
        for (Thread taker : takers) {
            taker.join();
        }
        assertThat(granted.get()).isEqualTo(90);
    }
}
