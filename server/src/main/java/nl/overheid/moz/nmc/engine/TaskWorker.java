package nl.overheid.moz.nmc.engine;

import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.lifecycle.Transitions;

/**
 * The agent of one task kind: claims a batch, executes it on virtual threads, repeats. Idle, it sleeps for
 * the poll interval or until {@link #nudge()}d (after an acceptance or a stored receipt), so the happy path
 * is quick without a tight poll. Claims are spread over DVs so that one DV's peak does not block others.
 */
public final class TaskWorker implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(TaskWorker.class.getName());

    private final TaskHandler handler;
    private final Database database;
    private final TaskRepository tasks;
    private final SendBudget budget;
    private final Transitions transitions;
    private final Clock clock;
    private final EngineSettings settings;
    private final BlockingQueue<Boolean> wake = new ArrayBlockingQueue<>(1);
    private final ExecutorService executions = Executors.newVirtualThreadPerTaskExecutor();
    private volatile boolean running;
    private Thread loop;

    public TaskWorker(TaskHandler handler, Database database, TaskRepository tasks, SendBudget budget,
                      Transitions transitions, Clock clock, EngineSettings settings) {
        this.handler = handler;
        this.database = database;
        this.tasks = tasks;
        this.budget = budget;
        this.transitions = transitions;
        this.clock = clock;
        this.settings = settings;
    }

    public synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        loop = Thread.ofVirtual().name("nmc-worker-" + handler.kind()).start(this::run);
    }

    /** Wakes the worker early: new work may be due. */
    public void nudge() {
        wake.offer(Boolean.TRUE);
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
                    wake.poll(settings.pollInterval().toMillis(), TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** One claim round and the execution of what it claimed; returns the number of tasks executed. */
    public int runOnce() {
        List<Task> claimed = claimRound();
        List<Future<?>> running = new ArrayList<>(claimed.size());
        for (Task task : claimed) {
            running.add(executions.submit(() -> executeOne(task)));
        }
        for (Future<?> future : running) {
            try {
                future.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (java.util.concurrent.ExecutionException e) {
                LOG.log(Level.SEVERE, "task execution escaped its handler", e.getCause());
            }
        }
        return claimed.size();
    }

    private List<Task> claimRound() {
        List<Task> failedOnClaim = new ArrayList<>();
        List<Task> toRun = database.inTransaction(connection -> {
            Instant now = clock.instant();
            List<TaskRepository.DueWork> dvs = tasks.taskDueDvs(connection, handler.kind(), now, settings.maxDvsPerRound());
            if (dvs.isEmpty()) {
                return List.<Task>of();
            }
            long backlog = dvs.stream().mapToLong(TaskRepository.DueWork::backlog).sum();
            int want = (int) Math.min(backlog, settings.batchSize());
            int granted = switch (handler.budget()) {
                case NONE -> want;
                case SENDING -> budget.budgetTakeForSending(connection, settings.notifyService(), want, now);
                case RECONCILING -> budget.budgetTakeForReconciling(connection, settings.notifyService(), want, now);
            };
            List<Task> claimed = claimFairly(connection, dvs, granted, now);
            if (handler.budget() != TaskHandler.Budget.NONE) {
                budget.budgetReturn(connection, settings.notifyService(), handler.budget(), granted - claimed.size(), now);
            }
            List<Task> toExecute = new ArrayList<>(claimed.size());
            for (Task task : claimed) {
                java.sql.Savepoint savepoint = connection.setSavepoint();
                try {
                    if (handler.onClaim(connection, task)) {
                        toExecute.add(task);
                    }
                    connection.releaseSavepoint(savepoint);
                } catch (RuntimeException e) {
                    // One bad task must not hold back the others' claims: undo only its claim step and count it.
                    connection.rollback(savepoint);
                    LOG.log(Level.WARNING, "claim step of task " + task.id() + " (" + task.kind() + ") failed", e);
                    failedOnClaim.add(task);
                }
            }
            return toExecute;
        });
        failedOnClaim.forEach(task -> recordFailure(task, "claim"));
        return toRun;
    }

    /** Spreads {@code tokens} over the DVs: an equal share each, then what is left to those with more work. */
    private List<Task> claimFairly(Connection connection, List<TaskRepository.DueWork> dvs, int tokens, Instant now) {
        List<Task> claimed = new ArrayList<>();
        Instant leaseUntil = now.plus(settings.lease());
        int share = Math.max(1, (int) Math.ceil((double) tokens / dvs.size()));
        for (TaskRepository.DueWork dv : dvs) {
            int limit = Math.min(share, tokens - claimed.size());
            if (limit <= 0) {
                break;
            }
            claimed.addAll(tasks.taskClaimDue(connection, handler.kind(), dv.dvId(), limit, now, leaseUntil));
        }
        for (TaskRepository.DueWork dv : dvs) {
            int limit = tokens - claimed.size();
            if (limit <= 0) {
                break;
            }
            claimed.addAll(tasks.taskClaimDue(connection, handler.kind(), dv.dvId(), limit, now, leaseUntil));
        }
        return claimed;
    }

    private void executeOne(Task task) {
        try {
            handler.execute(task);
        } catch (Exception e) {
            String fout = e.getClass().getSimpleName();
            LOG.log(Level.WARNING, "task " + task.id() + " (" + task.kind() + ") failed inside the NMC: " + fout, e);
            recordFailure(task, fout);
        }
    }

    private void recordFailure(Task task, String fout) {
        database.inTransactionDo(connection -> {
            if (task.notificatie() != null && transitions.lock(connection, task.notificatie()).isEmpty()) {
                return;
            }
            Instant due = clock.instant().plus(backoff(task.pogingenteller() + 1));
            tasks.taskRecordFailure(connection, task, due, fout).ifPresent(count -> {
                if (count >= handler.maxFailures(connection, task)) {
                    handler.onExhausted(connection, task, tasks, fout);
                }
            });
        });
    }

    /** Exponential backoff from the settings' base, capped. */
    public Duration backoff(int failures) {
        long factor = 1L << Math.min(Math.max(failures - 1, 0), 20);
        Duration delay = settings.backoffBase().multipliedBy(factor);
        return delay.compareTo(settings.backoffMax()) > 0 ? settings.backoffMax() : delay;
    }

    @Override
    public void close() {
        running = false;
        nudge();
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
