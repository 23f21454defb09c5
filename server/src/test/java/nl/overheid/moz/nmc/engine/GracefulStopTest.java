package nl.overheid.moz.nmc.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.testing.MutableClock;
import nl.overheid.moz.nmc.testing.TestDatabase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * How a worker stops (design §6, graceful shutdown): claims stop at once; claimed tasks that have not started are
 * released, so another instance takes them at once and without an attempt counted; a running task finishes and
 * commits within the grace period; one that outlives it is interrupted, not counted as failed, and left to its
 * lease. The clock does not move here, so "at once" means: without any lease expiring.
 */
class GracefulStopTest {

    private static final TestDatabase DB = TestDatabase.get();
    private static final Database database = DB.shared();
    private static final Duration LEASE = Duration.ofSeconds(60);

    private final MutableClock clock = MutableClock.startingNow();
    private final TaskRepository tasks = new TaskRepository();
    private final OwnedTasks owned = new OwnedTasks(database, tasks);
    private final SendBudget budget =
            new SendBudget(new SendBudgetRepository(), java.util.Map.of("standaard", 3000), 0.1);
    private UUID dvId;

    @BeforeEach
    void reset() {
        dvId = DB.resetWithOneDv(database);
    }

    /** One task at a time, so the rest of a claimed batch waits for its turn. */
    private EngineSettings settings(Duration grace) {
        return EngineSettings.defaults()
                .withPollInterval(Duration.ofMillis(50))
                .withParallelism(1)
                .withLease(LEASE)
                .withBackoffBase(Duration.ofSeconds(1))
                .withBackoffMax(Duration.ofSeconds(10))
                .withShutdownGrace(grace);
    }

    /** Runs each task until the test opens the gate, then completes it; records what it started. */
    private final class Gated implements TaskHandler {
        final CountDownLatch gate = new CountDownLatch(1);
        final List<Long> started = new CopyOnWriteArrayList<>();

        @Override
        public TaskKind kind() {
            return TaskKind.WISSEN;
        }

        @Override
        public SubjectLock<?> subjectLock() {
            return SubjectLock.NONE;
        }

        @Override
        public void execute(Task task) throws InterruptedException {
            started.add(task.id());
            gate.await();
            owned.underLocks(task, SubjectLock.NONE, (tx, t) -> tasks.complete(tx, t));
        }
    }

    @Test
    void claimedTasksThatHaveNotStartedAreReleasedAndARunningOneFinishesWithinTheGrace() throws Exception {
        plan(5);
        Gated handler = new Gated();
        TaskWorker stopping = new TaskWorker(
                handler, database, tasks, budget, new WorkSignals(), clock, settings(Duration.ofSeconds(30)));
        stopping.start();
        awaitTrue(
                () -> handler.started.size() == 1
                        && count("SELECT count(*) FROM taak WHERE lease_tot IS NOT NULL") == 5,
                "one task runs, the other four of the batch wait for their turn");

        stopping.stopClaiming();
        awaitTrue(
                () -> count("SELECT count(*) FROM taak WHERE lease_tot IS NULL") == 4,
                "the four that did not start are released while the running one still runs");
        assertThat(stopping.awaitDrained(
                        System.nanoTime() + Duration.ofMillis(200).toNanos()))
                .as("not drained while a task runs")
                .isFalse();
        handler.gate.countDown();
        assertThat(stopping.awaitDrained(
                        System.nanoTime() + Duration.ofSeconds(10).toNanos()))
                .isTrue();

        assertThat(handler.started).as("nothing started after the stop").hasSize(1);
        assertThat(count("SELECT count(*) FROM taak"))
                .as("the running task committed its completion")
                .isEqualTo(4);
        assertThat(count("SELECT count(*) FROM taak WHERE pogingenteller > 0 OR status <> 'open'"))
                .as("no attempt counted, nothing parked")
                .isZero();
        assertThat(stopping.released()).isEqualTo(4);

        // Another instance, on the same instant: without waiting for any lease it takes all four.
        Gated other = new Gated();
        other.gate.countDown();
        assertThat(new TaskWorker(
                                other,
                                database,
                                tasks,
                                budget,
                                new WorkSignals(),
                                clock,
                                settings(Duration.ofSeconds(30)))
                        .runOnce())
                .isEqualTo(4);
        assertThat(count("SELECT count(*) FROM taak")).isZero();
    }

    @Test
    void aTaskThatOutlivesTheGraceIsInterruptedUncountedAndLeftToItsLease() throws Exception {
        plan(1);
        Gated handler = new Gated();
        TaskWorker stopping = new TaskWorker(
                handler, database, tasks, budget, new WorkSignals(), clock, settings(Duration.ofMillis(300)));
        stopping.start();
        awaitTrue(() -> handler.started.size() == 1, "the task runs");

        stopping.close();

        assertThat(
                        count(
                                "SELECT count(*) FROM taak WHERE lease_tot IS NOT NULL AND pogingenteller = 0 AND status = 'open'"))
                .as("interrupted, not counted as failed, still leased (it may have had a call in flight)")
                .isEqualTo(1);
        Gated other = new Gated();
        other.gate.countDown();
        TaskWorker next = new TaskWorker(
                other, database, tasks, budget, new WorkSignals(), clock, settings(Duration.ofSeconds(30)));
        assertThat(next.runOnce()).as("not claimable while its lease runs").isZero();
        clock.advance(LEASE.plusSeconds(1));
        assertThat(next.runOnce())
                .as("claimable once the lease expired, as after a crash")
                .isEqualTo(1);
    }

    @Test
    void noClaimRoundStartsAfterTheStop() throws Exception {
        Gated handler = new Gated();
        handler.gate.countDown();
        TaskWorker worker = new TaskWorker(
                handler, database, tasks, budget, new WorkSignals(), clock, settings(Duration.ofSeconds(30)));
        worker.start();
        worker.stopClaiming();
        assertThat(worker.awaitDrained(
                        System.nanoTime() + Duration.ofSeconds(10).toNanos()))
                .as("the claim loop ended")
                .isTrue();
        plan(3);
        assertThat(worker.runOnce())
                .as("a claim round asked for after the stop claims nothing")
                .isZero();
        assertThat(handler.started).isEmpty();
        assertThat(count("SELECT count(*) FROM taak WHERE lease_tot IS NULL AND claim_epoch = 0"))
                .as("not even claimed and given back")
                .isEqualTo(3);
    }

    private void plan(int count) {
        database.inTransactionDo(tx -> {
            for (int i = 0; i < count; i++) {
                tasks.insert(tx, TaskRepository.NewTask.standalone(TaskKind.WISSEN, dvId, clock.instant()));
            }
        });
    }

    private static void awaitTrue(java.util.function.BooleanSupplier condition, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 20 s: " + what);
            }
            Thread.sleep(20);
        }
    }

    private static long count(String sql) {
        try (Connection c = DB.connect();
                PreparedStatement s = c.prepareStatement(sql);
                ResultSet rows = s.executeQuery()) {
            rows.next();
            return rows.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
