package nl.overheid.moz.nmc.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.testing.MutableClock;
import nl.overheid.moz.nmc.testing.TestDatabase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Claims against a budget per key (the NMC's keys are its NotifyNL services), on the engine alone: the engine sees
 * only opaque keys with a limit each. Every key's executions per window stay within its own limit, a key whose
 * window is used up never holds back another key's work, and a token given back by a task that made no call is
 * taken again in the same window.
 */
class BudgetClaimTest {

    private static final TestDatabase DB = TestDatabase.get();
    private static final Database database = DB.shared();
    private static final Duration LEASE = Duration.ofSeconds(60);
    /** A: 10 a minute (9 for sending, 1 for reconciliation); B: 20 a minute (18 and 2). */
    private static final Map<String, Integer> LIMITS = Map.of("a", 10, "b", 20);

    /** At the start of a minute, so that a test's rounds fall in one window until it advances the clock. */
    private final MutableClock clock =
            new MutableClock(Instant.now().truncatedTo(ChronoUnit.MINUTES).plusSeconds(1));

    private final TaskRepository tasks = new TaskRepository();
    private final OwnedTasks owned = new OwnedTasks(database, tasks);
    private final SendBudget budget = new SendBudget(new SendBudgetRepository(), LIMITS, 0.1);
    private final UnusedTokens unusedTokens = new UnusedTokens(database, budget, clock);
    private UUID dvA;

    @BeforeEach
    void reset() {
        dvA = DB.resetWithOneDv(database);
    }

    /** A send-like kind: spends the sending share, completes what it runs, counts its runs per budget key. */
    private class Sender implements TaskHandler {
        final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        /** Tasks that end without a call: they give their token back. */
        volatile boolean callsNothing;

        @Override
        public TaskKind kind() {
            return TaskKind.VERZENDEN;
        }

        @Override
        public Budget budget() {
            return Budget.SENDING;
        }

        @Override
        public SubjectLock<?> subjectLock() {
            return SubjectLock.NONE;
        }

        @Override
        public void execute(Task task) {
            runs.computeIfAbsent(task.budget(), key -> new AtomicInteger()).incrementAndGet();
            if (callsNothing) {
                unusedTokens.giveBack(task, budget());
            }
            owned.underLocks(task, SubjectLock.NONE, (tx, t) -> tasks.complete(tx, t));
        }

        int runsOf(String key) {
            return runs.getOrDefault(key, new AtomicInteger()).get();
        }
    }

    private TaskWorker worker(Sender sender, int maxDvsPerRound) {
        EngineSettings settings = TaskEngineTest.SETTINGS.withMaxDvsPerRound(maxDvsPerRound);
        return new TaskWorker(sender, database, tasks, budget, new WorkSignals(), clock, settings);
    }

    private void plan(String key, UUID dv, int count) {
        database.inTransactionDo(tx -> {
            for (int i = 0; i < count; i++) {
                tasks.insert(
                        tx,
                        TaskRepository.NewTask.standalone(TaskKind.VERZENDEN, dv, clock.instant())
                                .withBudget(key));
            }
        });
    }

    /** Claim rounds until one claims nothing. */
    private static void drain(TaskWorker worker) {
        while (worker.runOnce() > 0) {
            // the next round
        }
    }

    @Test
    void eachKeysRunsPerWindowStayWithinItsOwnLimitWhileTheOtherKeysWorkGoesOn() {
        plan("a", dvA, 30);
        plan("b", dvA, 30);
        Sender sender = new Sender();
        TaskWorker worker = worker(sender, 20);

        drain(worker);
        assertThat(sender.runsOf("a"))
                .as("a: its 9 sending tokens of the window")
                .isEqualTo(9);
        assertThat(sender.runsOf("b")).as("b: its own 18, not held back by a").isEqualTo(18);

        clock.advance(Duration.ofMinutes(1));
        drain(worker);
        assertThat(sender.runsOf("a")).isEqualTo(18);
        assertThat(sender.runsOf("b")).as("b's rest").isEqualTo(30);

        clock.advance(Duration.ofMinutes(1));
        drain(worker);
        assertThat(sender.runsOf("a")).isEqualTo(27);
        assertThat(count("SELECT count(*) FROM taak WHERE budget = 'a'")).isEqualTo(3);
    }

    @Test
    void aKeyWhoseWindowIsUsedUpDoesNotHoldBackWorkOfAnotherKeyPlannedLater() {
        plan("a", dvA, 30);
        Sender sender = new Sender();
        TaskWorker worker = worker(sender, 20);
        drain(worker);
        assertThat(sender.runsOf("a")).isEqualTo(9);

        clock.advance(Duration.ofSeconds(5));
        plan("b", dvA, 5);
        drain(worker);
        assertThat(sender.runsOf("b"))
                .as("a's older, waiting backlog does not block b")
                .isEqualTo(5);
        assertThat(sender.runsOf("a")).isEqualTo(9);
    }

    @Test
    void everyKeyGetsItsOwnDvsInARoundSoAUsedUpKeysDvsCannotCrowdAnotherKeyOut() {
        UUID dvOfA = UUID.randomUUID();
        UUID dvOfB = UUID.randomUUID();
        plan("a", dvOfA, 30);
        clock.advance(Duration.ofSeconds(1));
        plan("b", dvOfB, 5);
        Sender sender = new Sender();
        // One DV per round: were the DVs picked over all keys, a's DV (older work) would take the only place in
        // every round, and b's work would wait as long as a's backlog lasts.
        TaskWorker worker = worker(sender, 1);

        drain(worker);
        assertThat(sender.runsOf("a")).isEqualTo(9);
        assertThat(sender.runsOf("b")).isEqualTo(5);
    }

    @Test
    void aKeyWithoutALimitIsNeverClaimedAndTheOthersGoOn() {
        plan("unconfigured", dvA, 3);
        plan("a", dvA, 3);
        Sender sender = new Sender();
        drain(worker(sender, 20));
        assertThat(sender.runsOf("unconfigured")).isZero();
        assertThat(sender.runsOf("a")).isEqualTo(3);
        assertThat(count("SELECT count(*) FROM taak WHERE budget = 'unconfigured' AND lease_tot IS NULL"))
                .as("it waits, unclaimed, for a limit")
                .isEqualTo(3);
    }

    @Test
    void aTaskThatMadeNoCallGivesItsTokenBackAndTheWindowServesThatMuchMore() {
        plan("a", dvA, 9);
        Sender sender = new Sender();
        sender.callsNothing = true;
        TaskWorker worker = worker(sender, 20);
        drain(worker);
        assertThat(sender.runsOf("a")).isEqualTo(9);

        sender.callsNothing = false;
        plan("a", dvA, 12);
        drain(worker);
        assertThat(sender.runsOf("a"))
                .as("the 9 tokens given back are taken again in the same window")
                .isEqualTo(18);
        assertThat(count("SELECT count(*) FROM taak")).isEqualTo(3);
    }

    @Test
    void aTokenIsNotGivenBackIntoALaterWindow() {
        plan("a", dvA, 9);
        Sender sender = new Sender();
        TaskWorker worker = worker(sender, 20);
        // the worker runs tasks on several threads at once
        List<Task> claimed = java.util.Collections.synchronizedList(new ArrayList<>());
        Sender recorder = new Sender() {
            @Override
            public void execute(Task task) {
                claimed.add(task);
                owned.underLocks(task, SubjectLock.NONE, (tx, t) -> tasks.complete(tx, t));
            }
        };
        drain(worker(recorder, 20));
        assertThat(claimed).hasSize(9);
        clock.advance(Duration.ofMinutes(1));
        plan("a", dvA, 20);
        drain(worker);
        assertThat(sender.runsOf("a")).as("the new window's own 9").isEqualTo(9);
        claimed.forEach(task -> unusedTokens.giveBack(task, TaskHandler.Budget.SENDING));
        drain(worker);
        assertThat(sender.runsOf("a"))
                .as("nothing carried over from the window before")
                .isEqualTo(9);
    }

    @Test
    void twoInstancesRacingTogetherStayWithinEachKeysLimit() throws Exception {
        List<UUID> dvs = List.of(dvA, UUID.randomUUID(), UUID.randomUUID());
        dvs.forEach(dv -> {
            plan("a", dv, 20);
            plan("b", dv, 20);
        });
        Sender sender = new Sender();
        List<Thread> instances = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            TaskWorker worker = worker(sender, 20);
            instances.add(Thread.ofVirtual().start(() -> {
                for (int round = 0; round < 20; round++) {
                    worker.runOnce();
                }
            }));
        }
        for (Thread instance : instances) {
            instance.join(60_000);
        }
        assertThat(sender.runsOf("a")).isEqualTo(9);
        assertThat(sender.runsOf("b")).isEqualTo(18);
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
