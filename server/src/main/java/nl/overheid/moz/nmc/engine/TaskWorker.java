package nl.overheid.moz.nmc.engine;

import io.helidon.dbclient.DbTransaction;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.db.SqlStates;
import nl.overheid.moz.nmc.logging.LogContext;
import nl.overheid.moz.nmc.trace.Tracing;

/**
 * The agent of one task kind: claims a batch, executes it on virtual threads, repeats. Idle, it sleeps for
 * the poll interval or until its kind is nudged through {@link WorkSignals}. For kinds that call NotifyNL a
 * claim is bounded by the {@link SendBudget} of each task's budget key; the batch is spread fairly over the
 * budgets with due work and, within a budget, over its DVs ({@link FairClaim}).
 *
 * <p>Stopping is graceful ({@link #stopClaiming}, {@link #awaitDrained}, {@link #abandon}): no new claim round
 * starts; a claimed task that has not started is released (lease cleared, nothing counted) so another instance
 * takes it at once; a running task may finish and commit until the grace period ends. What still runs then is
 * interrupted and left to its lease, exactly as after a crash: the epoch keeps a late write out, and a send that
 * may be at NotifyNL is looked up by reference at its next claim.
 */
public final class TaskWorker implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(TaskWorker.class.getName());
    /** How often a task waiting for an execution slot looks whether the instance stops. */
    private static final Duration PERMIT_CHECK = Duration.ofMillis(50);

    private final TaskHandler handler;
    private final Database database;
    private final TaskRepository tasks;
    private final SendBudget budget;
    private final WorkSignals signals;
    private final Clock clock;
    private final EngineSettings settings;
    private final EngineEvents events;
    private final Tracing tracing;
    private final ExecutorService executions = Executors.newVirtualThreadPerTaskExecutor();
    private final Semaphore executing;
    private volatile boolean running;
    /** Set when the instance stops: claimed tasks that have not started are released instead of run. */
    private volatile boolean stopping;
    /** Set when the grace period ended: a failure of an interrupted task is not the task's, so not counted. */
    private volatile boolean abandoned;

    private final AtomicInteger released = new AtomicInteger();
    private Thread loop;

    public TaskWorker(
            TaskHandler handler,
            Database database,
            TaskRepository tasks,
            SendBudget budget,
            WorkSignals signals,
            Clock clock,
            EngineSettings settings) {
        this(handler, database, tasks, budget, signals, clock, settings, EngineEvents.NONE);
    }

    /** With someone to tell about claim rounds (the metrics). */
    public TaskWorker(
            TaskHandler handler,
            Database database,
            TaskRepository tasks,
            SendBudget budget,
            WorkSignals signals,
            Clock clock,
            EngineSettings settings,
            EngineEvents events) {
        this(handler, database, tasks, budget, signals, clock, settings, events, Tracing.off());
    }

    /** With the metrics' events and the traces each run is a span of. */
    public TaskWorker(
            TaskHandler handler,
            Database database,
            TaskRepository tasks,
            SendBudget budget,
            WorkSignals signals,
            Clock clock,
            EngineSettings settings,
            EngineEvents events,
            Tracing tracing) {
        this.events = events;
        this.tracing = tracing;
        this.handler = handler;
        this.database = database;
        this.tasks = tasks;
        this.budget = budget;
        this.signals = signals;
        this.clock = clock;
        this.settings = settings;
        this.executing = new Semaphore(settings.parallelism());
    }

    public TaskKind kind() {
        return handler.kind();
    }

    public synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        loop = Thread.ofVirtual().name("nmc-worker-" + handler.kind()).start(this::run);
    }

    private void run() {
        while (running) {
            int executed;
            try {
                executed = runOnce();
            } catch (RuntimeException e) {
                LOG.log(
                        Level.WARNING,
                        "claim round of " + handler.kind() + " failed; retrying after the poll interval",
                        e);
                executed = 0;
            }
            if (executed == 0) {
                try {
                    signals.await(handler.kind(), settings.pollInterval());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** One claim round and the execution of what it claimed; returns the number of tasks executed. */
    public int runOnce() {
        if (stopping) {
            return 0;
        }
        long claimStarted = System.nanoTime();
        List<Task> claimed = claimRound();
        events.claimRound(handler.kind(), java.time.Duration.ofNanos(System.nanoTime() - claimStarted), claimed.size());
        List<Future<?>> started = new ArrayList<>(claimed.size());
        if (claimed.size() > 1 && handler.together()) {
            started.add(executions.submit(() -> executeTogether(claimed)));
        } else {
            for (Task task : claimed) {
                started.add(executions.submit(() -> executeOne(task)));
            }
        }
        for (Future<?> future : started) {
            try {
                future.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (ExecutionException e) {
                LOG.log(Level.SEVERE, "task execution escaped its handler", e.getCause());
            }
        }
        return claimed.size();
    }

    /**
     * The claim: one short transaction that picks the DVs with due work per budget, spreads the batch over the
     * budgets, takes each budget's tokens, claims tasks fairly over its DVs, gives back what it could not use,
     * and commits before anything is executed. A budget whose window is used up gets no tokens and so claims
     * nothing, while the other budgets' work is claimed in the same round.
     */
    private List<Task> claimRound() {
        return database.inTransaction(tx -> {
            Instant now = clock.instant();
            List<TaskRepository.DueWork> due = tasks.dueDvs(tx, handler.kind(), now, settings.maxDvsPerRound());
            if (due.isEmpty()) {
                return List.<Task>of();
            }
            Instant leaseUntil = now.plus(settings.lease());
            return FairClaim.claim(
                    BudgetWork.of(due),
                    BudgetWork::backlog,
                    settings.batchSize(),
                    (work, limit) -> claimFrom(tx, work, limit, now, leaseUntil));
        });
    }

    /** Claims up to {@code limit} tasks of one budget: its tokens first, then fairly over its DVs. */
    private List<Task> claimFrom(DbTransaction tx, BudgetWork work, int limit, Instant now, Instant leaseUntil) {
        int want = (int) Math.min(work.backlog(), limit);
        TaskHandler.Budget purpose = handler.budget();
        int granted =
                purpose == TaskHandler.Budget.NONE ? want : budget.budgetTake(tx, work.budget(), purpose, want, now);
        List<Task> claimed = FairClaim.claim(
                work.dvs(),
                TaskRepository.DueWork::backlog,
                granted,
                (dv, dvLimit) ->
                        tasks.claimDue(tx, handler.kind(), work.budget(), dv.dvId(), dvLimit, now, leaseUntil));
        budget.budgetReturn(tx, work.budget(), purpose, granted - claimed.size(), now, now);
        return claimed;
    }

    /** The due work of one budget key (null: tasks that spend none), its DVs oldest due first. */
    record BudgetWork(String budget, List<TaskRepository.DueWork> dvs) {

        long backlog() {
            return dvs.stream().mapToLong(TaskRepository.DueWork::backlog).sum();
        }

        /**
         * Groups the due work by budget, in the order of the budgets' keys (null first). A budget's take keeps its
         * window's row locked until the claim commits, so two instances' rounds that took two budgets in opposite
         * orders (each instance's own oldest-due order, read from its own snapshot) deadlocked; in one order they
         * only queue. Within a budget the DVs stay oldest due first.
         */
        static List<BudgetWork> of(List<TaskRepository.DueWork> due) {
            Map<String, List<TaskRepository.DueWork>> byBudget =
                    new java.util.TreeMap<>(java.util.Comparator.nullsFirst(java.util.Comparator.naturalOrder()));
            for (TaskRepository.DueWork work : due) {
                byBudget.computeIfAbsent(work.budget(), key -> new ArrayList<>())
                        .add(work);
            }
            List<BudgetWork> groups = new ArrayList<>();
            byBudget.forEach((key, dvs) -> groups.add(new BudgetWork(key, dvs)));
            return groups;
        }
    }

    private void executeOne(Task task) {
        try (LogContext.Scope context = logContext(task)) {
            executeInContext(task);
        }
    }

    /** Every line logged while a task runs names it: trace, notification, kind, DV (ids only). */
    private static LogContext.Scope logContext(Task task) {
        return LogContext.start(java.util.Map.of(
                LogContext.TAAK_SOORT, task.kind().dbValue(),
                LogContext.TRACE_ID, java.util.Objects.requireNonNullElse(task.traceId(), ""),
                LogContext.NOTIFICATIE_ID, java.util.Objects.requireNonNullElse(task.notificatie(), ""),
                LogContext.DV_ID, java.util.Objects.requireNonNullElse(task.dvId(), "")));
    }

    /** Runs the task as a span of its notification's trace; the calls it makes are children of it. */
    private void executeTraced(Task task) throws Exception {
        traced(task, () -> {
            handler.execute(task);
            return null;
        });
    }

    private <T> T traced(Task task, java.util.concurrent.Callable<T> work) throws Exception {
        try (Tracing.Run run = tracing.run(
                task.kind().dbValue(),
                task.traceId(),
                task.traceParentSpanId(),
                task.dvId() == null ? null : task.dvId().toString())) {
            try {
                return work.call();
            } catch (Exception e) {
                run.failed(e);
                throw e;
            }
        }
    }

    /** One task of a batch executed together: its own log context and span, as when it runs alone. */
    private void eachOfBatch(Task task, Runnable work) {
        try (LogContext.Scope context = logContext(task)) {
            traced(task, () -> {
                work.run();
                return null;
            });
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A batch of a kind that executes together, in one slot: one transaction for all. When it fails, nothing of it
     * was written, and each task is executed on its own, so the failure is counted only on the task it is about.
     */
    private void executeTogether(List<Task> batch) {
        if (!permitToRun()) {
            batch.forEach(this::release);
            return;
        }
        try {
            handler.executeTogether(batch, this::eachOfBatch);
            return;
        } catch (Exception e) {
            if (abandoned) {
                return; // interrupted at the end of the grace period; the leases expire
            }
            if (SqlStates.unavailable(e)) {
                LOG.warning(() -> "a batch of " + batch.size() + " " + handler.kind()
                        + " tasks could not reach the database: " + e.getMessage() + "; their leases expire");
                return;
            }
            LOG.info(() -> "a batch of " + batch.size() + " " + handler.kind() + " tasks failed together ("
                    + e.getClass().getSimpleName() + "); each is executed on its own");
        } finally {
            executing.release();
        }
        for (Task task : batch) {
            executeOne(task);
        }
    }

    private void executeInContext(Task task) {
        if (!permitToRun()) {
            release(task);
            return;
        }
        try {
            executeTraced(task);
        } catch (Exception e) {
            if (abandoned) {
                // Interrupted at the end of the grace period: not the task's failure. Its lease expires.
                LOG.fine(() ->
                        "task " + task.id() + " (" + task.kind() + ") interrupted while stopping; left to its lease");
                return;
            }
            if (SqlStates.unavailable(e)) {
                // Not the task's failure: it could not run. Its lease expires and a later claim retries it.
                LOG.warning(() ->
                        "task " + task.id() + " (" + task.kind() + ") could not reach the database: " + e.getMessage());
                return;
            }
            String error = e.getClass().getSimpleName();
            LOG.log(Level.WARNING, "task " + task.id() + " (" + task.kind() + ") failed inside the NMC: " + error, e);
            try {
                recordFailure(task, error);
            } catch (RuntimeException notRecorded) {
                LOG.warning(() -> "failure of task " + task.id() + " not recorded (" + notRecorded.getMessage()
                        + "); its lease expires and a later claim retries it");
            }
        } finally {
            executing.release();
        }
    }

    /**
     * Waits for one of the kind's execution slots; {@code false} when the instance stops first (or the wait is
     * interrupted): the task has not started and is to be released.
     */
    private boolean permitToRun() {
        try {
            while (!stopping) {
                if (executing.tryAcquire(PERMIT_CHECK.toMillis(), TimeUnit.MILLISECONDS)) {
                    if (!stopping) {
                        return true;
                    }
                    executing.release();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return false;
    }

    /** Gives a claimed task that did not start back (its lease cleared); if that fails, its lease expires. */
    private void release(Task task) {
        try {
            if (database.inTransaction(tx -> tasks.release(tx, task))) {
                released.incrementAndGet();
            }
        } catch (RuntimeException e) {
            LOG.warning(() -> "task " + task.id() + " (" + task.kind() + ") not released ("
                    + e.getClass().getSimpleName() + "); its lease expires and a later claim takes it");
        }
    }

    /** Counts an NMC-internal failure under the subject lock; exhausted tasks go to the handler. */
    private void recordFailure(Task task, String error) {
        database.inTransactionDo(tx -> {
            if (handler.subjectLock().lock(tx, task).isEmpty()) {
                return;
            }
            Instant due = clock.instant().plus(settings.backoff(task.failureCount() + 1));
            tasks.recordFailure(tx, task, due, error).ifPresent(count -> {
                if (count >= handler.maxFailures(tx, task)) {
                    handler.onExhausted(tx, task, tasks, error);
                }
            });
        });
    }

    /**
     * The first step of stopping: no claim round starts any more, and claimed tasks that have not started are
     * released as they come up. Returns at once.
     */
    public void stopClaiming() {
        stopping = true;
        running = false;
        signals.nudge(handler.kind());
    }

    /**
     * Waits until the claim loop ended and every task it claimed finished or was released, at most until
     * {@code deadline} ({@link System#nanoTime()}); {@code true} when drained.
     */
    public boolean awaitDrained(long deadline) {
        try {
            Thread current = loop;
            if (current != null && !current.join(remaining(deadline))) {
                return false;
            }
            executions.shutdown();
            return executions.awaitTermination(remaining(deadline).toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * The grace period ended: interrupts what still runs and waits {@code settle} for it to end. Those tasks
     * keep their leases (see the class comment); their failures are not counted.
     */
    public void abandon(Duration settle) {
        abandoned = true;
        executions.shutdownNow();
        if (loop != null) {
            loop.interrupt();
        }
        try {
            executions.awaitTermination(settle.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Claimed tasks given back while stopping. */
    public int released() {
        return released.get();
    }

    private static Duration remaining(long deadline) {
        return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    }

    /** Stops on its own (outside {@code Nmc}): claims stop, then what runs may finish within the grace period. */
    @Override
    public void close() {
        stopClaiming();
        if (!awaitDrained(System.nanoTime() + settings.shutdownGrace().toNanos())) {
            abandon(Duration.ofSeconds(1));
        }
    }
}
