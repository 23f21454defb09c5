package nl.overheid.moz.nmc.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.helidon.dbclient.DbTransaction;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.lifecycle.NotificatieRepository;
import nl.overheid.moz.nmc.lifecycle.Transitions;
import nl.overheid.moz.nmc.testing.MutableClock;
import nl.overheid.moz.nmc.testing.Notifications;
import nl.overheid.moz.nmc.testing.TestDatabase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The task engine on its own: claims, leases, epochs and the subject-lock hook, without the lifecycle's steps. */
class TaskEngineTest {

    private static final TestDatabase DB = TestDatabase.get();
    private static final Duration LEASE = Duration.ofSeconds(60);
    private static final Database database = DB.shared();

    private final MutableClock clock = MutableClock.startingNow();
    private final TaskRepository tasks = new TaskRepository();
    private final OwnedTasks owned = new OwnedTasks(database, tasks);
    private final WorkSignals signals = new WorkSignals();
    private final SendBudget budget = new SendBudget(new SendBudgetRepository(), Map.of("standaard", 3000), 0.1);
    /** The engine's defaults with a short poll, 8 at once, a short lease, quick backoff and a short grace. */
    static final EngineSettings SETTINGS = EngineSettings.defaults()
            .withPollInterval(Duration.ofMillis(100))
            .withParallelism(8)
            .withLease(LEASE)
            .withBackoffBase(Duration.ofSeconds(1))
            .withBackoffMax(Duration.ofSeconds(10))
            .withShutdownGrace(Duration.ofSeconds(5));

    private final EngineSettings settings = SETTINGS;
    private UUID dvId;

    @BeforeEach
    void reset() {
        dvId = DB.resetWithOneDv(database);
    }

    /** A handler of one kind whose work the test decides; it completes what it executes unless told not to. */
    private class Probe implements TaskHandler {
        final TaskKind kind;
        final SubjectLock<?> lock;
        final Map<Long, AtomicInteger> executions = new ConcurrentHashMap<>();
        final List<Task> seen = new CopyOnWriteArrayList<>();
        volatile boolean complete = true;
        volatile boolean fail;

        Probe(TaskKind kind, SubjectLock<?> lock) {
            this.kind = kind;
            this.lock = lock;
        }

        @Override
        public TaskKind kind() {
            return kind;
        }

        @Override
        public SubjectLock<?> subjectLock() {
            return lock;
        }

        @Override
        public void execute(Task task) {
            seen.add(task);
            executions.computeIfAbsent(task.id(), id -> new AtomicInteger()).incrementAndGet();
            if (fail) {
                throw new IllegalStateException("simulated NMC-internal failure");
            }
            if (complete) {
                owned.underLocks(task, SubjectLock.NONE, (tx, t) -> tasks.complete(tx, t));
            }
        }
    }

    private TaskWorker worker(TaskHandler handler) {
        return new TaskWorker(handler, database, tasks, budget, signals, clock, settings);
    }

    private void plan(TaskKind kind, UUID dv, UUID notificatie, int count) {
        database.inTransactionDo(tx -> {
            for (int i = 0; i < count; i++) {
                TaskRepository.NewTask task = notificatie == null
                        ? TaskRepository.NewTask.standalone(kind, dv, clock.instant())
                        : TaskRepository.NewTask.forNotificatie(kind, dv, notificatie, clock.instant(), null);
                // the kinds that call NotifyNL name their budget (the schema refuses them without)
                tasks.insert(
                        tx,
                        kind == TaskKind.VERZENDEN || kind == TaskKind.RECONCILIEREN
                                ? task.withBudget("standaard")
                                : task);
            }
        });
    }

    @Test
    void tasksThatActOnNoNotificationAreClaimedWithAndWithoutADv() {
        plan(TaskKind.WISSEN, dvId, null, 1);
        plan(TaskKind.WISSEN, null, null, 1);
        Probe probe = new Probe(TaskKind.WISSEN, SubjectLock.NONE);

        assertThat(worker(probe).runOnce()).isEqualTo(2);
        assertThat(probe.seen).extracting(Task::dvId).containsExactlyInAnyOrder(dvId, null);
        assertThat(probe.seen).allSatisfy(task -> assertThat(task.notificatie()).isNull());
        assertThat(count("SELECT count(*) FROM taak")).isZero();
    }

    @Test
    void aKindThatActsOnANotificationTakesItsLockBeforeTheTaskRow() throws Exception {
        UUID notificatie = acceptOne();
        plan(TaskKind.RECONCILIEREN, dvId, notificatie, 1);
        List<String> locked = new CopyOnWriteArrayList<>();
        Transitions transitions = new Transitions(new NotificatieRepository(), clock);
        SubjectLock<Transitions.Locked> notificatieLock = (tx, task) -> {
            Optional<Transitions.Locked> n = transitions.lock(tx, task.notificatie());
            locked.add(n.map(l -> l.status().dbValue()).orElse("gone"));
            return n;
        };
        Probe probe = new Probe(TaskKind.RECONCILIEREN, notificatieLock);
        probe.fail = true;

        // Another transaction holds the notification: the engine's failure record must wait for it, and must
        // not hold the task row while it waits (that would be the inverted lock order).
        try (Connection holder = DB.connect()) {
            lockNotificatie(holder, notificatie);
            Thread round = Thread.ofVirtual().start(() -> worker(probe).runOnce());
            awaitWaitingOnALock();
            assertThat(round.isAlive())
                    .as("the failure's transaction waits for the notification lock")
                    .isTrue();
            assertThat(taskRowIsFree())
                    .as("while waiting it holds no lock on the task row")
                    .isTrue();
            assertThat(count("SELECT pogingenteller FROM taak")).isZero();
            holder.commit();
            round.join(10_000);
            assertThat(round.isAlive()).isFalse();
        }
        assertThat(locked).containsExactly("aangenomen");
        assertThat(count("SELECT pogingenteller FROM taak"))
                .as("the failure was counted after the lock")
                .isEqualTo(1);
    }

    @Test
    void twoWorkersClaimingTheSameDueTasksRunEachTaskExactlyOnce() throws Exception {
        List<UUID> dvs = List.of(dvId, UUID.randomUUID(), UUID.randomUUID(), UUID.randomUUID(), UUID.randomUUID());
        dvs.forEach(dv -> plan(TaskKind.WISSEN, dv, null, 60));
        Probe probe = new Probe(TaskKind.WISSEN, SubjectLock.NONE);
        TaskWorker first = worker(probe);
        TaskWorker second = worker(probe);

        List<Thread> racers = new ArrayList<>();
        for (TaskWorker worker : List.of(first, second)) {
            racers.add(Thread.ofVirtual().start(() -> {
                for (int idle = 0; idle < 3; ) {
                    idle = worker.runOnce() == 0 ? idle + 1 : 0;
                }
            }));
        }
        for (Thread racer : racers) {
            racer.join(60_000);
        }
        assertThat(probe.executions).hasSize(300);
        assertThat(probe.executions.values())
                .allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
        assertThat(probe.seen).allSatisfy(task -> assertThat(task.claimEpoch()).isEqualTo(1));
        assertThat(count("SELECT count(*) FROM taak")).isZero();
    }

    @Test
    void aReclaimAfterAnExpiredLeaseRaisesTheEpochAndTheStaleClaimWritesNothing() {
        plan(TaskKind.WISSEN, dvId, null, 1);
        Probe probe = new Probe(TaskKind.WISSEN, SubjectLock.NONE);
        probe.complete = false;
        TaskWorker worker = worker(probe);

        assertThat(worker.runOnce()).isEqualTo(1);
        assertThat(worker.runOnce()).as("leased: not claimable again").isZero();
        clock.advance(LEASE.plusSeconds(1));
        assertThat(worker.runOnce()).as("the lease expired: claimable again").isEqualTo(1);

        Task stale = probe.seen.get(0);
        Task current = probe.seen.get(1);
        assertThat(stale.claimEpoch()).isEqualTo(1);
        assertThat(current.claimEpoch()).isEqualTo(2);
        assertThat(current.id()).isEqualTo(stale.id());
        boolean staleCompleted = database.inTransaction(tx -> tasks.complete(tx, stale));
        boolean stalePostponed = database.inTransaction(tx -> tasks.postpone(tx, stale, clock.instant(), "x"));
        assertThat(staleCompleted).isFalse();
        assertThat(stalePostponed).isFalse();
        assertThat(owned.underLocks(stale, SubjectLock.NONE, (tx, t) -> tasks.complete(tx, t)))
                .isFalse();
        assertThat(count("SELECT count(*) FROM taak"))
                .as("the stale claim wrote nothing")
                .isEqualTo(1);
        boolean currentCompleted = database.inTransaction(tx -> tasks.complete(tx, current));
        assertThat(currentCompleted).isTrue();
    }

    @Test
    void aTaskThatKeepsFailingIsParkedForAnOperatorAtItsKindsMaximum() {
        plan(TaskKind.WISSEN, dvId, null, 1);
        Probe probe = new Probe(TaskKind.WISSEN, SubjectLock.NONE);
        probe.fail = true;
        TaskWorker worker = worker(probe);
        for (int failure = 1; failure <= TaskHandler.DEFAULT_MAX_FAILURES; failure++) {
            assertThat(worker.runOnce()).isEqualTo(1);
            clock.advance(settings.backoffMax());
        }
        assertThat(count("SELECT count(*) FROM taak WHERE status = 'mislukt'")).isEqualTo(1);
        assertThat(worker.runOnce()).as("a parked task is not claimed").isZero();
    }

    @Test
    void aTaskThatCouldNotReachTheDatabaseIsNotCountedAsFailed() {
        plan(TaskKind.WISSEN, dvId, null, 1);
        TaskHandler unreachable = new Probe(TaskKind.WISSEN, SubjectLock.NONE) {
            @Override
            public void execute(Task task) {
                throw new IllegalStateException(new java.sql.SQLTransientConnectionException("pool exhausted"));
            }
        };
        TaskWorker worker = worker(unreachable);
        assertThat(worker.runOnce()).isEqualTo(1);
        assertThat(count("SELECT pogingenteller FROM taak")).isZero();
        assertThat(worker.runOnce()).as("leased until the lease expires").isZero();
        clock.advance(LEASE.plusSeconds(1));
        assertThat(worker.runOnce()).as("then claimed again").isEqualTo(1);
    }

    @Test
    void aBatchTakesItsSubjectsInOneOrderInOneTransactionAndSkipsATaskWhoseClaimWasTakenOver() {
        for (int i = 0; i < 6; i++) {
            plan(TaskKind.RECONCILIEREN, dvId, acceptOne(), 1);
        }
        Probe claimer = new Probe(TaskKind.RECONCILIEREN, SubjectLock.NONE);
        claimer.complete = false;
        assertThat(worker(claimer).runOnce()).isEqualTo(6);
        List<Task> batch = new ArrayList<>(claimer.seen);
        java.util.Collections.shuffle(batch, new java.util.Random(20));
        Task stale = batch.get(2);
        DB.execute("UPDATE taak SET claim_epoch = claim_epoch + 1 WHERE id = " + stale.id(), null);

        Transitions transitions = new Transitions(new NotificatieRepository(), clock);
        List<String> lockOrder = new CopyOnWriteArrayList<>();
        List<String> transactions = new CopyOnWriteArrayList<>();
        List<Long> eachRan = new CopyOnWriteArrayList<>();
        SubjectLock<Transitions.Locked> lock = (tx, task) -> {
            lockOrder.add(task.notificatie().toString());
            return transitions.lock(tx, task.notificatie());
        };
        owned.underLocksTogether(
                batch,
                lock,
                (task, work) -> {
                    eachRan.add(task.id());
                    work.run();
                },
                (tx, task, n) -> {
                    transactions.add(tx.get("SELECT CAST(txid_current() AS text) AS t")
                            .orElseThrow()
                            .column("t")
                            .getString());
                    tasks.complete(tx, task);
                });

        assertThat(lockOrder)
                .as("subjects in the database's uuid order")
                .isSorted()
                .hasSize(6);
        assertThat(eachRan).as("each task through the worker's wrapper").hasSize(6);
        assertThat(transactions).as("one transaction for the batch").hasSize(5).containsOnly(transactions.getFirst());
        assertThat(count("SELECT count(*) FROM taak"))
                .as("the taken-over task was left alone")
                .isEqualTo(1);
        assertThat(count("SELECT count(*) FROM taak WHERE id = " + stale.id())).isEqualTo(1);
    }

    @Test
    void aBatchThatFailsWritesNothingAndEachOfItsTasksThenRunsOnItsOwn() {
        List<UUID> notificaties = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            UUID notificatie = acceptOne();
            notificaties.add(notificatie);
            plan(TaskKind.RECONCILIEREN, dvId, notificatie, 1);
        }
        UUID bad = notificaties.get(1);
        Transitions transitions = new Transitions(new NotificatieRepository(), clock);
        SubjectLock<Transitions.Locked> lock = (tx, task) -> transitions.lock(tx, task.notificatie());
        List<Long> alone = new CopyOnWriteArrayList<>();
        OwnedTasks.TaskWork<Transitions.Locked> work = (tx, task, n) -> {
            tasks.complete(tx, task);
            if (n.id().equals(bad)) {
                throw new IllegalStateException("simulated failure of one member");
            }
        };
        TaskHandler together = new TaskHandler() {
            @Override
            public TaskKind kind() {
                return TaskKind.RECONCILIEREN;
            }

            @Override
            public SubjectLock<?> subjectLock() {
                return lock;
            }

            @Override
            public void execute(Task task) {
                owned.underLocks(task, lock, (tx, n) -> {
                    alone.add(task.id());
                    work.run(tx, task, n);
                });
            }

            @Override
            public boolean together() {
                return true;
            }

            @Override
            public void executeTogether(List<Task> batch, OwnedTasks.Each each) {
                owned.underLocksTogether(batch, lock, each, work);
            }
        };

        assertThat(worker(together).runOnce()).isEqualTo(4);

        assertThat(count("SELECT count(*) FROM taak"))
                .as("only the bad member's task is left")
                .isEqualTo(1);
        assertThat(count("SELECT pogingenteller FROM taak"))
                .as("its failure counted once")
                .isEqualTo(1);
        assertThat(alone)
                .as("the batch wrote nothing: every member's task was still there to run on its own, once")
                .hasSize(4)
                .doesNotHaveDuplicates();
    }

    /** Waits until some backend of this database waits on a lock (the worker's failure transaction). */
    private static void awaitWaitingOnALock() throws InterruptedException {
        for (int i = 0; i < 200; i++) {
            if (count("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                            + "AND datname = current_database()")
                    > 0) {
                return;
            }
            Thread.sleep(25);
        }
        throw new AssertionError("nobody waited on a lock");
    }

    private static boolean taskRowIsFree() {
        try (Connection c = DB.connect();
                PreparedStatement s = c.prepareStatement("SELECT id FROM taak FOR UPDATE NOWAIT")) {
            s.executeQuery().close();
            c.rollback();
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

    private UUID acceptOne() {
        UUID id = UUID.randomUUID();
        database.inTransaction((DbTransaction tx) -> new Transitions(new NotificatieRepository(), clock)
                .accept(tx, Notifications.aNotificationWithId(id, dvId)));
        return id;
    }

    private static void lockNotificatie(Connection connection, UUID id) throws SQLException {
        try (PreparedStatement s = connection.prepareStatement("SELECT id FROM notificatie WHERE id = ? FOR UPDATE")) {
            s.setObject(1, id);
            s.executeQuery().close();
        }
    }

    private static long count(String sql) {
        try (Connection c = DB.connect();
                PreparedStatement s = c.prepareStatement(sql);
                ResultSet rows = s.executeQuery()) {
            long total = 0;
            while (rows.next()) {
                total += rows.getLong(1);
            }
            return total;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
