package nl.overheid.moz.nmc.engine;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.db.SqlStates;
import nl.overheid.moz.nmc.logging.LogContext;

/**
 * The agent of one task kind: claims a batch, executes it on virtual threads, repeats. Idle, it sleeps for
 * the poll interval or until its kind is nudged through {@link WorkSignals}. Claims are spread over DVs
 * ({@link FairClaim}) and, for kinds that call NotifyNL, bounded by the {@link SendBudget}.
 */
public final class TaskWorker implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(TaskWorker.class.getName());

    private final TaskHandler handler;
    private final Database database;
    private final TaskRepository tasks;
    private final SendBudget budget;
    private final WorkSignals signals;
    private final Clock clock;
    private final EngineSettings settings;
    private final EngineEvents events;
    private final ExecutorService executions = Executors.newVirtualThreadPerTaskExecutor();
    private final Semaphore executing;
    private volatile boolean running;
    private Thread loop;

    public TaskWorker(TaskHandler handler, Database database, TaskRepository tasks, SendBudget budget,
                      WorkSignals signals, Clock clock, EngineSettings settings) {
        this(handler, database, tasks, budget, signals, clock, settings, EngineEvents.NONE);
    }

    /** With someone to tell about claim rounds (the metrics). */
    public TaskWorker(TaskHandler handler, Database database, TaskRepository tasks, SendBudget budget,
                      WorkSignals signals, Clock clock, EngineSettings settings, EngineEvents events) {
        this.events = events;
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
                LOG.log(Level.WARNING, "claim round of " + handler.kind() + " failed; retrying after the poll interval", e);
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
        long claimStarted = System.nanoTime();
        List<Task> claimed = claimRound();
        events.claimRound(handler.kind(), java.time.Duration.ofNanos(System.nanoTime() - claimStarted),
                claimed.size());
        List<Future<?>> started = new ArrayList<>(claimed.size());
        for (Task task : claimed) {
            started.add(executions.submit(() -> executeOne(task)));
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
     * The claim: one short transaction that picks the DVs with due work, takes tokens from the budget, claims
     * tasks fairly over the DVs, gives back unused tokens, and commits before anything is executed.
     */
    private List<Task> claimRound() {
        return database.inTransaction(tx -> {
            Instant now = clock.instant();
            List<TaskRepository.DueWork> dvs = tasks.taskDueDvs(tx, handler.kind(), now, settings.maxDvsPerRound());
            if (dvs.isEmpty()) {
                return List.<Task>of();
            }
            long backlog = dvs.stream().mapToLong(TaskRepository.DueWork::backlog).sum();
            int want = (int) Math.min(backlog, settings.batchSize());
            int granted = switch (handler.budget()) {
                case NONE -> want;
                case SENDING -> budget.budgetTakeForSending(tx, settings.notifyService(), want, now);
                case RECONCILING -> budget.budgetTakeForReconciling(tx, settings.notifyService(), want, now);
            };
            Instant leaseUntil = now.plus(settings.lease());
            List<Task> claimed = FairClaim.claim(dvs, granted,
                    (dvId, limit) -> tasks.taskClaimDue(tx, handler.kind(), dvId, limit, now, leaseUntil));
            if (handler.budget() != TaskHandler.Budget.NONE) {
                budget.budgetReturn(tx, settings.notifyService(), handler.budget(), granted - claimed.size(), now);
            }
            return claimed;
        });
    }

    private void executeOne(Task task) {
        // Every line logged while the task runs names it: trace, notification, kind, DV (ids only).
        try (LogContext.Scope context = LogContext.start(java.util.Map.of(
                LogContext.TAAK_SOORT, task.kind().dbValue(),
                LogContext.TRACE_ID, java.util.Objects.requireNonNullElse(task.traceId(), ""),
                LogContext.NOTIFICATIE_ID, java.util.Objects.requireNonNullElse(task.notificatie(), ""),
                LogContext.DV_ID, java.util.Objects.requireNonNullElse(task.dvId(), "")))) {
            executeInContext(task);
        }
    }

    private void executeInContext(Task task) {
        try {
            executing.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        try {
            handler.execute(task);
        } catch (Exception e) {
            if (SqlStates.unavailable(e)) {
                // Not the task's failure: it could not run. Its lease expires and a later claim retries it.
                LOG.warning(() -> "task " + task.id() + " (" + task.kind() + ") could not reach the database: "
                        + e.getMessage());
                return;
            }
            String fout = e.getClass().getSimpleName();
            LOG.log(Level.WARNING, "task " + task.id() + " (" + task.kind() + ") failed inside the NMC: " + fout, e);
            try {
                recordFailure(task, fout);
            } catch (RuntimeException notRecorded) {
                LOG.warning(() -> "failure of task " + task.id() + " not recorded (" + notRecorded.getMessage()
                        + "); its lease expires and a later claim retries it");
            }
        } finally {
            executing.release();
        }
    }

    /** Counts an NMC-internal failure under the subject lock; exhausted tasks go to the handler. */
    private void recordFailure(Task task, String fout) {
        database.inTransactionDo(tx -> {
            if (handler.subjectLock().lock(tx, task).isEmpty()) {
                return;
            }
            Instant due = clock.instant().plus(settings.backoff(task.pogingenteller() + 1));
            tasks.taskRecordFailure(tx, task, due, fout).ifPresent(count -> {
                if (count >= handler.maxFailures(tx, task)) {
                    handler.onExhausted(tx, task, tasks, fout);
                }
            });
        });
    }

    @Override
    public void close() {
        running = false;
        signals.nudge(handler.kind());
        if (loop != null) {
            try {
                loop.join(settings.lease().toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        executions.shutdown();
        try {
            executions.awaitTermination(settings.lease().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
