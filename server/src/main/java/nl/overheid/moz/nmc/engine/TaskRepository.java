package nl.overheid.moz.nmc.engine;

import io.helidon.dbclient.DbRow;
import io.helidon.dbclient.DbTransaction;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import nl.overheid.moz.nmc.db.DbTypes;
import nl.overheid.moz.nmc.db.Statement;

/**
 * All SQL of {@code taak}. Every write after a claim carries the claim epoch and reports whether it still
 * owned the task: {@code false} means another worker re-claimed it after our lease expired. The optional
 * {@code notificatie} column is only the task's subject here: this class never reads or locks the row. The
 * optional {@code budget} column is an opaque key its planner chose (the send budget the task spends):
 * claims are grouped by it, never interpreted.
 */
public final class TaskRepository {

    private final EngineEvents events;

    public TaskRepository() {
        this(EngineEvents.NONE);
    }

    /** With someone to tell about postponements and expired leases (the metrics). */
    public TaskRepository(EngineEvents events) {
        this.events = events;
    }

    private static final String RETURNED_COLUMNS = """
            t.id, t.soort, t.dv_id, t.notificatie, t.poging, t.ontvangst, t.due, t.lease_tot, t.claim_epoch,
            t.pogingenteller, t.trace_id, CAST(t.payload AS text) AS payload,
            (SELECT n.aanname_span_id FROM notificatie n WHERE n.id = t.notificatie) AS trace_parent_span_id,
            coalesce(CAST(t.payload->>'uitstel' AS int), 0) AS uitstel, t.budget
            """;

    private static final Statement TASK_INSERT = Statement.named("taskInsert", """
            INSERT INTO taak (soort, dv_id, notificatie, poging, ontvangst, ontvangst_completed_at, due, trace_id,
                              payload, budget)
            VALUES (:soort, :dvId, :notificatie, :poging, :ontvangst, :ontvangstCompletedAt, :due, :traceId,
                    CAST(:payload AS jsonb), :budget)
            ON CONFLICT DO NOTHING
            """);

    /* Several tasks in one statement (a bulk acceptance plans one per notification). */
    private static final Statement TASK_INSERT_ALL = Statement.named("taskInsertAll", """
            INSERT INTO taak (soort, dv_id, notificatie, poging, ontvangst, ontvangst_completed_at, due, trace_id,
                              payload, budget)
            SELECT * FROM unnest(CAST(:soorten AS text[]), CAST(:dvIds AS uuid[]), CAST(:notificaties AS uuid[]),
                                 CAST(:pogingen AS uuid[]), CAST(:ontvangsten AS bigint[]),
                                 CAST(:ontvangstCompletedAts AS timestamptz[]), CAST(:dues AS timestamptz[]),
                                 CAST(:traceIds AS text[]), CAST(:payloads AS jsonb[]), CAST(:budgets AS text[]))
            ON CONFLICT DO NOTHING
            """);

    /*
     * Due work of a kind per (budget, DV); a NULL DV is the kind's system tasks, a NULL budget a kind that spends
     * none. Each budget gets up to :maxDvs DVs of its own, oldest due first, so that the DVs of a budget whose
     * window is used up can never crowd another budget's DVs out of the round. Reads without locking.
     */
    private static final Statement TASK_DUE_DVS = Statement.named("taskDueDvs", """
            SELECT d.budget, d.dv_id, d.backlog
              FROM (SELECT t.budget, t.dv_id, count(*) AS backlog, min(t.due) AS oudste,
                           row_number() OVER (PARTITION BY t.budget ORDER BY min(t.due)) AS rang
                      FROM taak t
                     WHERE t.soort = :soort AND t.status = 'open' AND t.due <= :now
                       AND (t.lease_tot IS NULL OR t.lease_tot < :now)
                     GROUP BY t.budget, t.dv_id) d
             WHERE d.rang <= :maxDvs
             ORDER BY d.oudste
            """);

    /*
     * The claim: one statement that locks only task rows, with SKIP LOCKED, so it never waits for (or
     * deadlocks with) anyone. Whatever a task acts on is locked later, in the task's own transaction, before
     * the task row again (SubjectLock). Four variants: of one budget or of none, and the DV's tasks or the
     * system tasks (dv_id IS NULL), each served by the (soort, budget, dv_id, due) index.
     */
    private static final String CLAIM = """
            UPDATE taak t
               SET lease_tot = :leaseUntil, claim_epoch = t.claim_epoch + 1
              FROM (SELECT c.id, c.lease_tot IS NOT NULL AS lease_verlopen
                      FROM taak c
                     WHERE c.soort = :soort AND %s AND %s AND c.status = 'open' AND c.due <= :now
                       AND (c.lease_tot IS NULL OR c.lease_tot < :now)
                     ORDER BY c.due, c.id
                     LIMIT :limit
                       FOR UPDATE SKIP LOCKED) claimable
             WHERE t.id = claimable.id
            RETURNING %s, claimable.lease_verlopen
            """;

    private static final Statement TASK_CLAIM_DUE =
            Statement.named("taskClaimDue", CLAIM.formatted("c.budget IS NULL", "c.dv_id = :dvId", RETURNED_COLUMNS));

    private static final Statement TASK_CLAIM_DUE_SYSTEM = Statement.named(
            "taskClaimDueSystem", CLAIM.formatted("c.budget IS NULL", "c.dv_id IS NULL", RETURNED_COLUMNS));

    private static final Statement TASK_CLAIM_DUE_BUDGET = Statement.named(
            "taskClaimDueBudget", CLAIM.formatted("c.budget = :budget", "c.dv_id = :dvId", RETURNED_COLUMNS));

    private static final Statement TASK_CLAIM_DUE_BUDGET_SYSTEM = Statement.named(
            "taskClaimDueBudgetSystem", CLAIM.formatted("c.budget = :budget", "c.dv_id IS NULL", RETURNED_COLUMNS));

    private static final Statement TASK_LOCK_OWNED = Statement.named("taskLockOwned", """
            SELECT id FROM taak WHERE id = :id AND claim_epoch = :epoch FOR UPDATE
            """);

    private static final Statement TASK_COMPLETE = Statement.named("taskComplete", """
            DELETE FROM taak WHERE id = :id AND claim_epoch = :epoch
            """);

    private static final Statement TASK_COMPLETE_FOR_NOTIFICATION = Statement.named("taskCompleteForNotification", """
            DELETE FROM taak WHERE notificatie = :notificatie AND soort = :soort
            """);

    private static final Statement TASK_COMPLETE_FOR_ATTEMPT = Statement.named("taskCompleteForAttempt", """
            DELETE FROM taak WHERE notificatie = :notificatie AND soort = :soort AND poging = :poging
            """);

    private static final Statement TASK_BUDGETS = Statement.named("taskBudgets", """
            SELECT DISTINCT budget FROM taak WHERE budget IS NOT NULL
            """);

    private static final Statement TASK_COMPLETE_FOR_RECEIPTS = Statement.named("taskCompleteForReceipts", """
            DELETE FROM taak WHERE soort = 'verwerken' AND ontvangst = ANY (CAST(:ids AS bigint[]))
            """);

    private static final Statement TASK_COMPLETE_PARKED_OR_OTHER_FOR_NOTIFICATION =
            Statement.named("completeParkedOrOtherForNotificatie", """
            DELETE FROM taak WHERE notificatie = :notificatie AND soort <> ALL (CAST(:keep AS text[]))
               AND (status = 'mislukt' OR soort <> ALL (CAST(:openKinds AS text[])))
            """);

    private static final Statement TASK_COMPLETE_ALL_FOR_NOTIFICATION_EXCEPT =
            Statement.named("completeAllForNotificatieExcept", """
            DELETE FROM taak WHERE notificatie = :notificatie AND soort <> ALL (CAST(:keep AS text[]))
            """);

    private static final Statement TASK_POSTPONE = Statement.named("taskPostpone", """
            UPDATE taak SET due = :due, lease_tot = NULL, laatste_fout = :fout,
                   payload = jsonb_set(payload, '{uitstel}',
                                       to_jsonb(coalesce(CAST(payload->>'uitstel' AS int), 0) + 1))
             WHERE id = :id AND claim_epoch = :epoch
            """);

    /*
     * A postponement of a kind the handler counts on its own (payload.tellers.<teller>, and when it first counted in
     * payload.tellers_sinds.<teller>): the task is postponed as above, or, once the counter reaches :limit and its
     * first count is at :firstBefore or earlier, parked as mislukt. One statement, so the count and the decision
     * cannot drift apart.
     */
    private static final Statement TASK_POSTPONE_COUNTING = Statement.named("taskPostponeCounting", """
            UPDATE taak t
               SET status = CASE WHEN c.parkeren THEN 'mislukt' ELSE 'open' END,
                   due = CASE WHEN c.parkeren THEN t.due ELSE :due END,
                   lease_tot = NULL, laatste_fout = :fout,
                   payload = jsonb_set(
                       jsonb_set(
                           jsonb_set(t.payload, '{uitstel}',
                                     to_jsonb(coalesce(CAST(t.payload->>'uitstel' AS int), 0) + 1)),
                           '{tellers}',
                           coalesce(t.payload->'tellers', '{}') || jsonb_build_object(CAST(:teller AS text), c.teller)),
                       '{tellers_sinds}',
                       coalesce(t.payload->'tellers_sinds', '{}') || jsonb_build_object(CAST(:teller AS text), c.sinds))
              FROM (SELECT n.teller, n.sinds, n.teller >= :limit AND n.sinds <= :firstBefore AS parkeren
                      FROM (SELECT coalesce(CAST(payload->'tellers'->>CAST(:teller AS text) AS int), 0) + 1 AS teller,
                                   coalesce(CAST(payload->'tellers_sinds'->>CAST(:teller AS text) AS timestamptz),
                                            CAST(:now AS timestamptz)) AS sinds
                              FROM taak WHERE id = :id) n) c
             WHERE t.id = :id AND t.claim_epoch = :epoch
            RETURNING c.teller, t.status
            """);

    private static final Statement TASK_RECORD_FAILURE = Statement.named("taskRecordFailure", """
            UPDATE taak SET due = :due, lease_tot = NULL, laatste_fout = :fout, pogingenteller = pogingenteller + 1
             WHERE id = :id AND claim_epoch = :epoch
            RETURNING pogingenteller
            """);

    private static final Statement TASK_MARK_FAILED = Statement.named("taskMarkFailed", """
            UPDATE taak SET status = 'mislukt', lease_tot = NULL, laatste_fout = :fout
             WHERE id = :id AND claim_epoch = :epoch
            """);

    private static final Statement TASK_RESCHEDULE = Statement.named("taskReschedule", """
            UPDATE taak SET due = :due, lease_tot = NULL, pogingenteller = 0, laatste_fout = NULL, payload = '{}'
             WHERE id = :id AND claim_epoch = :epoch
            """);

    /* Due stays as it was (it was due when claimed), so the next claim anywhere takes it; no failure counted. */
    private static final Statement TASK_RELEASE = Statement.named("taskRelease", """
            UPDATE taak SET lease_tot = NULL WHERE id = :id AND claim_epoch = :epoch AND status = 'open'
            """);

    private static final Statement TASK_DUE_FOR_DV = Statement.named("taskDueForDv", """
            UPDATE taak SET due = least(due, :due) WHERE dv_id = :dvId AND soort = :soort AND status = 'open'
            """);

    private static final Statement TASK_EXTEND_LEASE = Statement.named("taskExtendLease", """
            UPDATE taak SET lease_tot = :leaseUntil WHERE id = :id AND claim_epoch = :epoch
            """);

    /*
     * Operations (the operator API; the control duty reopens a parked send whose geldig_tot has passed): tasks
     * parked for an operator, read and reopened. A reopened task is due
     * now with its counters cleared (the last error class stays until its next try); only a parked task is
     * touched, so a task a worker holds or that completed is left alone.
     */
    private static final String VIEW_COLUMNS = """
            t.id, t.soort, t.status, t.dv_id, t.notificatie, t.due, t.pogingenteller,
            coalesce(CAST(t.payload->>'uitstel' AS int), 0) AS uitstel, t.laatste_fout, t.aangemaakt_op
            """;

    private static final Statement TASK_LIST_PARKED = Statement.named("taskListParked", """
            SELECT %s FROM taak t
             WHERE t.status = 'mislukt' AND t.id > :after
               AND (CAST(:soort AS text) IS NULL OR t.soort = :soort)
               AND (CAST(:dvId AS uuid) IS NULL OR t.dv_id = :dvId)
               AND (CAST(:fout AS text) IS NULL OR t.laatste_fout = :fout)
             ORDER BY t.id
             LIMIT :limit
            """.formatted(VIEW_COLUMNS));

    private static final Statement TASK_VIEW =
            Statement.named("taskView", "SELECT %s FROM taak t WHERE t.id = :id".formatted(VIEW_COLUMNS));

    private static final Statement TASK_REOPEN_PARKED = Statement.named("taskReopenParked", """
            UPDATE taak SET status = 'open', due = :now, lease_tot = NULL, pogingenteller = 0,
                   payload = payload - 'uitstel' - 'tellers' - 'tellers_sinds'
             WHERE id = ANY (CAST(:ids AS bigint[])) AND status = 'mislukt'
            RETURNING id, soort
            """);

    /** A task as an operator sees it: no payload beyond the postponements, no lease. */
    public record TaskView(
            long id,
            TaskKind kind,
            String status,
            UUID dvId,
            UUID notificatie,
            Instant due,
            int failureCount,
            int postponements,
            String lastError,
            Instant aangemaaktOp) {}

    /** Which parked tasks to list ({@code null}: any); from after id {@code after}, at most {@code limit}. */
    public record ParkedFilter(TaskKind kind, UUID dvId, String lastError, long after, int limit) {}

    /** A task put back in the queue. */
    public record Reopened(long id, TaskKind kind) {}

    /** Parked tasks by id, oldest first. Reads without locking. */
    public List<TaskView> listParked(DbTransaction tx, ParkedFilter filter) {
        return TASK_LIST_PARKED
                .query(tx)
                .addParam("after", filter.after())
                .addParam("soort", filter.kind() == null ? null : filter.kind().dbValue())
                .addParam("dvId", filter.dvId())
                .addParam("fout", filter.lastError())
                .addParam("limit", filter.limit())
                .execute()
                .map(TaskRepository::viewOf)
                .toList();
    }

    /** One task, whatever its status; empty when it does not exist (completed tasks are deleted). */
    public Optional<TaskView> view(DbTransaction tx, long id) {
        return TASK_VIEW.get(tx).addParam("id", id).execute().map(TaskRepository::viewOf);
    }

    /**
     * Reopens those of {@code ids} that are parked: open, due {@code now}, attempt counter, postponements and the
     * handler's own counters ({@link #postponeCounting}) cleared. Concurrency: locks the rows it changes; a parked task is never claimed, so it waits for nobody.
     */
    public List<Reopened> reopenParked(DbTransaction tx, List<Long> ids, Instant now) {
        return TASK_REOPEN_PARKED
                .query(tx)
                .addParam("ids", ids.stream().map(String::valueOf).toArray(String[]::new))
                .addParam("now", now)
                .execute()
                .map(row -> new Reopened(DbTypes.longValue(row, "id"), TaskKind.of(DbTypes.text(row, "soort"))))
                .toList();
    }

    private static TaskView viewOf(DbRow row) {
        return new TaskView(
                DbTypes.longValue(row, "id"),
                TaskKind.of(DbTypes.text(row, "soort")),
                DbTypes.text(row, "status"),
                DbTypes.uuid(row, "dv_id"),
                DbTypes.uuid(row, "notificatie"),
                DbTypes.instant(row, "due"),
                DbTypes.integer(row, "pogingenteller"),
                DbTypes.integer(row, "uitstel"),
                DbTypes.text(row, "laatste_fout"),
                DbTypes.instant(row, "aangemaakt_op"));
    }

    /**
     * A task to plan. {@code budget}: the send budget it spends, an opaque key chosen by the planner (null for
     * kinds that spend none; required for kinds that do, the schema refuses them without).
     */
    public record NewTask(
            TaskKind kind,
            UUID dvId,
            UUID notificatie,
            UUID poging,
            Long receipt,
            Instant receiptCompletedAt,
            Instant due,
            String traceId,
            String payload,
            String budget) {

        public NewTask(
                TaskKind kind,
                UUID dvId,
                UUID notificatie,
                UUID poging,
                Long receipt,
                Instant receiptCompletedAt,
                Instant due,
                String traceId,
                String payload) {
            this(kind, dvId, notificatie, poging, receipt, receiptCompletedAt, due, traceId, payload, null);
        }

        public static NewTask forNotificatie(TaskKind kind, UUID dvId, UUID notificatie, Instant due, String traceId) {
            return new NewTask(kind, dvId, notificatie, null, null, null, due, traceId, "{}");
        }

        /** A task about no notification: per DV ({@code dvId} set) or for the system ({@code dvId} null). */
        public static NewTask standalone(TaskKind kind, UUID dvId, Instant due) {
            return new NewTask(kind, dvId, null, null, null, null, due, null, "{}");
        }

        public NewTask withPoging(UUID pogingId) {
            return new NewTask(
                    kind, dvId, notificatie, pogingId, receipt, receiptCompletedAt, due, traceId, payload, budget);
        }

        /** The same task, spending the send budget {@code key}. */
        public NewTask withBudget(String key) {
            return new NewTask(
                    kind, dvId, notificatie, poging, receipt, receiptCompletedAt, due, traceId, payload, key);
        }
    }

    /**
     * A DV with due work of a kind in one budget, and how much ({@code dvId} null: system tasks; {@code budget}
     * null: a kind that spends none).
     */
    public record DueWork(String budget, UUID dvId, long backlog) {}

    /**
     * Plans a task. Returns {@code false} when an equal task is already planned (the unique indexes on
     * (notificatie, soort) and, for receipts, the receipt itself make planning idempotent).
     */
    public boolean insert(DbTransaction tx, NewTask task) {
        return TASK_INSERT
                        .dml(tx)
                        .addParam("soort", task.kind())
                        .addParam("dvId", task.dvId())
                        .addParam("notificatie", task.notificatie())
                        .addParam("poging", task.poging())
                        .addParam("ontvangst", task.receipt())
                        .addParam("ontvangstCompletedAt", task.receiptCompletedAt())
                        .addParam("due", task.due())
                        .addParam("traceId", task.traceId())
                        .addParam("payload", task.payload())
                        .addParam("budget", task.budget())
                        .execute()
                == 1;
    }

    /** Plans several tasks in one statement; returns how many were new (see {@link #insert}). */
    public long insertAll(DbTransaction tx, List<NewTask> all) {
        if (all.isEmpty()) {
            return 0;
        }
        if (all.size() == 1) {
            // a lone task (a single acceptance) by the one-row statement: the server ran the unnest of one row at
            // twice its cost (pg_stat_statements, benchmark acceptance: 0.156 against 0.073 ms)
            return insert(tx, all.getFirst()) ? 1 : 0;
        }
        return TASK_INSERT_ALL
                .dml(tx)
                .addParam("soorten", texts(all, NewTask::kind))
                .addParam("dvIds", all.stream().map(NewTask::dvId).toArray(UUID[]::new))
                .addParam("notificaties", all.stream().map(NewTask::notificatie).toArray(UUID[]::new))
                .addParam("pogingen", all.stream().map(NewTask::poging).toArray(UUID[]::new))
                .addParam("ontvangsten", texts(all, NewTask::receipt))
                .addParam("ontvangstCompletedAts", texts(all, NewTask::receiptCompletedAt))
                .addParam("dues", texts(all, NewTask::due))
                .addParam("traceIds", texts(all, NewTask::traceId))
                .addParam("payloads", texts(all, NewTask::payload))
                .addParam("budgets", texts(all, NewTask::budget))
                .execute();
    }

    private static String[] texts(List<NewTask> all, java.util.function.Function<NewTask, Object> field) {
        return all.stream()
                .map(field)
                .map(value -> value == null ? null : value.toString())
                .toArray(String[]::new);
    }

    /**
     * The DVs with claimable work of a kind, per budget, oldest due first: at most {@code maxDvs} per budget.
     * Reads without locking.
     */
    public List<DueWork> dueDvs(DbTransaction tx, TaskKind kind, Instant now, int maxDvs) {
        return TASK_DUE_DVS
                .query(tx)
                .addParam("soort", kind)
                .addParam("now", now)
                .addParam("maxDvs", maxDvs)
                .execute()
                .map(row -> new DueWork(
                        DbTypes.text(row, "budget"), DbTypes.uuid(row, "dv_id"), DbTypes.longValue(row, "backlog")))
                .toList();
    }

    /**
     * Claims up to {@code limit} due tasks of one budget ({@code budget} null: tasks that spend none) and one
     * DV ({@code dvId} null: the kind's system tasks): leases them until {@code leaseUntil} and raises their
     * claim epoch. Concurrency: task rows locked by others are skipped, never waited for; the locks are held
     * until the caller's transaction ends.
     */
    public List<Task> claimDue(
            DbTransaction tx, TaskKind kind, String budget, UUID dvId, int limit, Instant now, Instant leaseUntil) {
        Statement claim = budget == null
                ? (dvId == null ? TASK_CLAIM_DUE_SYSTEM : TASK_CLAIM_DUE)
                : (dvId == null ? TASK_CLAIM_DUE_BUDGET_SYSTEM : TASK_CLAIM_DUE_BUDGET);
        var statement = claim.query(tx);
        if (budget != null) {
            statement.addParam("budget", budget);
        }
        if (dvId != null) {
            statement.addParam("dvId", dvId);
        }
        int[] expired = {0};
        List<Task> claimed = statement
                .addParam("soort", kind)
                .addParam("limit", limit)
                .addParam("now", now)
                .addParam("leaseUntil", leaseUntil)
                .execute()
                .map(row -> {
                    if (Boolean.TRUE.equals(row.column("lease_verlopen").get(Boolean.class))) {
                        expired[0]++;
                    }
                    return task(row, now);
                })
                .toList();
        if (expired[0] > 0) {
            events.leasesExpired(kind, expired[0]);
        }
        return claimed;
    }

    /**
     * Locks the task row if this claim still owns it. Call after locking the task's subject (lock order:
     * subject before its tasks). {@code false}: another worker re-claimed it; do not write.
     */
    public boolean lockOwned(DbTransaction tx, Task task) {
        return TASK_LOCK_OWNED
                .get(tx)
                .addParam("id", task.id())
                .addParam("epoch", task.claimEpoch())
                .execute()
                .isPresent();
    }

    /** Deletes the task (completed tasks are deleted). {@code false}: no longer ours. */
    public boolean complete(DbTransaction tx, Task task) {
        return TASK_COMPLETE
                        .dml(tx)
                        .addParam("id", task.id())
                        .addParam("epoch", task.claimEpoch())
                        .execute()
                == 1;
    }

    /** Completes the open task of a kind of a notification, whoever holds it (e.g. a receipt ends reconciliation). */
    public long completeForNotificatie(DbTransaction tx, UUID notificatie, TaskKind kind) {
        return TASK_COMPLETE_FOR_NOTIFICATION
                .dml(tx)
                .addParam("notificatie", notificatie)
                .addParam("soort", kind)
                .execute();
    }

    /** Completes the open task of a kind of a notification that is about this attempt, whoever holds it. */
    public long completeForPoging(DbTransaction tx, UUID notificatie, TaskKind kind, UUID poging) {
        return TASK_COMPLETE_FOR_ATTEMPT
                .dml(tx)
                .addParam("notificatie", notificatie)
                .addParam("soort", kind)
                .addParam("poging", poging)
                .execute();
    }

    /**
     * Completes the receipt tasks of these receipts, whoever holds them: the receipts were applied by another
     * receipt task of their attempt, so theirs has nothing left to do. The caller holds the notification's lock.
     */
    public long completeForReceipts(DbTransaction tx, List<Long> receipts) {
        if (receipts.isEmpty()) {
            return 0;
        }
        return TASK_COMPLETE_FOR_RECEIPTS
                .dml(tx)
                .addParam("ids", receipts.stream().map(String::valueOf).toArray(String[]::new))
                .execute();
    }

    /** The budget keys the tasks carry, open or parked. */
    public java.util.Set<String> budgets(DbTransaction tx) {
        java.util.Set<String> budgets = new java.util.TreeSet<>();
        TASK_BUDGETS
                .query(tx)
                .execute()
                .forEach(row -> budgets.add(row.column("budget").get(String.class)));
        return budgets;
    }

    /**
     * Completes a notification's tasks but those of the kinds {@code keep}, and but the open (not parked) ones of the
     * kinds {@code open}.
     */
    public long completeForNotificatieExcept(
            DbTransaction tx, UUID notificatie, java.util.Set<TaskKind> keep, java.util.Set<TaskKind> open) {
        return TASK_COMPLETE_PARKED_OR_OTHER_FOR_NOTIFICATION
                .dml(tx)
                .addParam("notificatie", notificatie)
                .addParam("keep", keep.stream().map(TaskKind::dbValue).toArray(String[]::new))
                .addParam("openKinds", open.stream().map(TaskKind::dbValue).toArray(String[]::new))
                .execute();
    }

    /** Completes every task about a notification but those of the kinds {@code keep}, whoever holds them. */
    public long completeAllForNotificatieExcept(DbTransaction tx, UUID notificatie, java.util.Set<TaskKind> keep) {
        return TASK_COMPLETE_ALL_FOR_NOTIFICATION_EXCEPT
                .dml(tx)
                .addParam("notificatie", notificatie)
                .addParam("keep", keep.stream().map(TaskKind::dbValue).toArray(String[]::new))
                .execute();
    }

    /**
     * Postpones after a failure of a party the NMC calls: the attempt counter does not rise (design §6).
     * The number of postponements is kept in the payload for the backoff.
     */
    public boolean postpone(DbTransaction tx, Task task, Instant due, String error) {
        boolean ours = TASK_POSTPONE
                        .dml(tx)
                        .addParam("id", task.id())
                        .addParam("epoch", task.claimEpoch())
                        .addParam("due", due)
                        .addParam("fout", error)
                        .execute()
                == 1;
        if (ours) {
            events.postponed(task.kind(), error);
        }
        return ours;
    }

    /** What a {@link #postponeCounting counted postponement} did: the counter's new value and whether it parked. */
    public record Counted(int count, boolean parked) {}

    /**
     * Postpones after a failure the handler counts on its own under {@code counter} (kept in the payload with the time
     * of its first count, both cleared when an operator reopens the task), like {@link #postpone}; once that counter
     * reaches {@code limit} and its first count is {@code minSpan} or longer ago, the task is parked as {@code
     * mislukt} instead, keeping {@code error} as its last error class. The span keeps a burst of failures (a
     * few minutes of a misbehaving proxy, run through by a fresh task's short backoff) from parking it. Empty when no
     * longer ours.
     */
    public Optional<Counted> postponeCounting(
            DbTransaction tx,
            Task task,
            Instant due,
            String error,
            String counter,
            int limit,
            Duration minSpan,
            Instant now) {
        Optional<Counted> counted = TASK_POSTPONE_COUNTING
                .get(tx)
                .addParam("id", task.id())
                .addParam("epoch", task.claimEpoch())
                .addParam("due", due)
                .addParam("fout", error)
                .addParam("teller", counter)
                .addParam("limit", limit)
                .addParam("now", now)
                .addParam("firstBefore", now.minus(minSpan))
                .execute()
                .map(row -> new Counted(DbTypes.integer(row, "teller"), "mislukt".equals(DbTypes.text(row, "status"))));
        counted.filter(c -> !c.parked()).ifPresent(c -> events.postponed(task.kind(), error));
        return counted;
    }

    /**
     * Plans a long-lived task again (it did its work and will have more): a new due, the lease released and
     * the counters cleared. {@code false}: no longer ours.
     */
    public boolean reschedule(DbTransaction tx, Task task, Instant due) {
        return TASK_RESCHEDULE
                        .dml(tx)
                        .addParam("id", task.id())
                        .addParam("epoch", task.claimEpoch())
                        .addParam("due", due)
                        .execute()
                == 1;
    }

    /**
     * Gives a claimed task back untouched (a stopping instance that will not run it): the lease is cleared so any
     * instance claims it at once, without counting an attempt. Locks only the task row. {@code false}: no longer
     * ours.
     */
    public boolean release(DbTransaction tx, Task task) {
        return TASK_RELEASE
                        .dml(tx)
                        .addParam("id", task.id())
                        .addParam("epoch", task.claimEpoch())
                        .execute()
                == 1;
    }

    /** Brings the open task of a kind of a DV forward to {@code due} (if it was later), whoever holds it. */
    public long dueForDv(DbTransaction tx, UUID dvId, TaskKind kind, Instant due) {
        return TASK_DUE_FOR_DV
                .dml(tx)
                .addParam("dvId", dvId)
                .addParam("soort", kind)
                .addParam("due", due)
                .execute();
    }

    /** Counts an NMC-internal failure and postpones; returns the new counter, or empty when no longer ours. */
    public Optional<Integer> recordFailure(DbTransaction tx, Task task, Instant due, String error) {
        return TASK_RECORD_FAILURE
                .get(tx)
                .addParam("id", task.id())
                .addParam("epoch", task.claimEpoch())
                .addParam("due", due)
                .addParam("fout", error)
                .execute()
                .map(row -> DbTypes.integer(row, "pogingenteller"));
    }

    /** Parks an exhausted task for an operator ({@code mislukt}). */
    public boolean markFailed(DbTransaction tx, Task task, String error) {
        return TASK_MARK_FAILED
                        .dml(tx)
                        .addParam("id", task.id())
                        .addParam("epoch", task.claimEpoch())
                        .addParam("fout", error)
                        .execute()
                == 1;
    }

    /** Extends the lease before an external call. {@code false}: no longer ours; do not call. */
    public boolean extendLease(DbTransaction tx, Task task, Instant leaseUntil) {
        return TASK_EXTEND_LEASE
                        .dml(tx)
                        .addParam("id", task.id())
                        .addParam("epoch", task.claimEpoch())
                        .addParam("leaseUntil", leaseUntil)
                        .execute()
                == 1;
    }

    static Task task(DbRow row, Instant claimedAt) {
        return new Task(
                DbTypes.longValue(row, "id"),
                TaskKind.of(DbTypes.text(row, "soort")),
                DbTypes.uuid(row, "dv_id"),
                DbTypes.uuid(row, "notificatie"),
                DbTypes.uuid(row, "poging"),
                DbTypes.nullableLong(row, "ontvangst"),
                DbTypes.instant(row, "due"),
                DbTypes.instant(row, "lease_tot"),
                DbTypes.longValue(row, "claim_epoch"),
                DbTypes.integer(row, "pogingenteller"),
                DbTypes.text(row, "trace_id"),
                DbTypes.text(row, "trace_parent_span_id"),
                DbTypes.text(row, "payload"),
                DbTypes.integer(row, "uitstel"),
                DbTypes.text(row, "budget"),
                claimedAt);
    }
}
