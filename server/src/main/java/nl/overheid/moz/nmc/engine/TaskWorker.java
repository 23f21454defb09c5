package nl.overheid.moz.nmc.engine;

import io.helidon.dbclient.DbTransaction;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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

/**
 * The agent of one task kind: claims a batch, executes it on virtual threads, repeats. Idle, it sleeps for
 * the poll interval or until its kind is nudged through {@link WorkSignals}. For kinds that call NotifyNL a
 * claim is bounded by the {@link SendBudget} of each task's budget key; the batch is spread fairly over the
 * budgets with due work and, within a budget, over its DVs ({@link FairClaim}).
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
    private final ExecutorService executions = Executors.newVirtualThreadPerTaskExecutor();
    private final Semaphore executing;
    private volatile boolean running;
    private Thread loop;

    public TaskWorker(TaskHandler handler, Database database, TaskRepository tasks, SendBudget budget,
                      WorkSignals signals, Clock clock, EngineSettings settings) {
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
        List<Task> claimed = claimRound();
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
     * The claim: one short transaction that picks the DVs with due work per budget, spreads the batch over the
     * budgets, takes each budget's tokens, claims tasks fairly over its DVs, gives back what it could not use,
     * and commits before anything is executed. A budget whose window is used up gets no tokens and so claims
     * nothing, while the other budgets' work is claimed in the same round.
     */
    private List<Task> claimRound() {
        return database.inTransaction(tx -> {
            Instant now = clock.instant();
            List<TaskRepository.DueWork> due = tasks.taskDueDvs(tx, handler.kind(), now, settings.maxDvsPerRound());
            if (due.isEmpty()) {
                return List.<Task>of();
            }
            Instant leaseUntil = now.plus(settings.lease());
            return FairClaim.claim(BudgetWork.of(due), BudgetWork::backlog, settings.batchSize(),
                    (work, limit) -> claimFrom(tx, work, limit, now, leaseUntil));
        });
    }

    /** Claims up to {@code limit} tasks of one budget: its tokens first, then fairly over its DVs. */
    private List<Task> claimFrom(DbTransaction tx, BudgetWork work, int limit, Instant now, Instant leaseUntil) {
        int want = (int) Math.min(work.backlog(), limit);
        TaskHandler.Budget purpose = handler.budget();
        int granted = purpose == TaskHandler.Budget.NONE ? want : budget.budgetTake(tx, work.budget(), purpose, want, now);
        List<Task> claimed = FairClaim.claim(work.dvs(), TaskRepository.DueWork::backlog, granted,
                (dv, dvLimit) -> tasks.taskClaimDue(tx, handler.kind(), work.budget(), dv.dvId(), dvLimit, now,
                        leaseUntil));
        budget.budgetReturn(tx, work.budget(), purpose, granted - claimed.size(), now, now);
        return claimed;
    }

    /** The due work of one budget key (null: tasks that spend none), its DVs oldest due first. */
    private record BudgetWork(String budget, List<TaskRepository.DueWork> dvs) {

        long backlog() {
            return dvs.stream().mapToLong(TaskRepository.DueWork::backlog).sum();
        }

        /** Groups the due work by budget, in the order of each budget's oldest due DV. */
        static List<BudgetWork> of(List<TaskRepository.DueWork> due) {
            Map<String, List<TaskRepository.DueWork>> byBudget = new LinkedHashMap<>();
            for (TaskRepository.DueWork work : due) {
                byBudget.computeIfAbsent(work.budget(), key -> new ArrayList<>()).add(work);
            }
            List<BudgetWork> groups = new ArrayList<>();
            byBudget.forEach((key, dvs) -> groups.add(new BudgetWork(key, dvs)));
            return groups;
        }
    }

    private void executeOne(Task task) {
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
