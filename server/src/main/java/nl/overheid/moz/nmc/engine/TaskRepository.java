package nl.overheid.moz.nmc.engine;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import nl.overheid.moz.nmc.db.Sql;

/**
 * All SQL of {@code taak}. Every write after a claim carries the claim epoch and reports whether it still
 * owned the task: {@code false} means another worker re-claimed it after our lease expired.
 */
public final class TaskRepository {

    private static final String TASK_INSERT = """
            INSERT INTO taak (soort, dv_id, notificatie, poging, ontvangst, ontvangst_completed_at, due, trace_id,
                              payload)
            VALUES (:soort, :dvId, :notificatie, :poging, :ontvangst, :ontvangstCompletedAt, :due, :traceId,
                    :payload::jsonb)
            ON CONFLICT DO NOTHING
            """;

    private static final String TASK_DUE_DVS = """
            SELECT t.dv_id, count(*) AS backlog
              FROM taak t
             WHERE t.soort = :soort AND t.status = 'open' AND t.due <= :now
               AND (t.lease_tot IS NULL OR t.lease_tot < :now)
             GROUP BY t.dv_id
             ORDER BY min(t.due)
             LIMIT :maxDvs
            """;

    /*
     * The claim: one statement. Task and notification rows are both taken with SKIP LOCKED, so a claim
     * never waits for (or deadlocks with) a receipt or cancel that holds the notification.
     */
    private static final String TASK_CLAIM_DUE = """
            UPDATE taak t
               SET lease_tot = :leaseUntil, claim_epoch = t.claim_epoch + 1
              FROM (SELECT c.id
                      FROM taak c
                      JOIN notificatie n ON n.id = c.notificatie
                     WHERE c.soort = :soort AND c.dv_id = :dvId AND c.status = 'open' AND c.due <= :now
                       AND (c.lease_tot IS NULL OR c.lease_tot < :now)
                     ORDER BY c.due, c.id
                     LIMIT :limit
                       FOR UPDATE OF c, n SKIP LOCKED) claimable
             WHERE t.id = claimable.id
            RETURNING t.id, t.soort, t.dv_id, t.notificatie, t.poging, t.ontvangst, t.due, t.lease_tot,
                      t.claim_epoch, t.pogingenteller, t.trace_id, t.payload::text AS payload
            """;

    private static final String TASK_OWNED_LOCK = """
            SELECT id FROM taak WHERE id = :id AND claim_epoch = :epoch FOR UPDATE
            """;

    private static final String TASK_COMPLETE = """
            DELETE FROM taak WHERE id = :id AND claim_epoch = :epoch
            """;

    private static final String TASK_COMPLETE_FOR_NOTIFICATION = """
            DELETE FROM taak WHERE notificatie = :notificatie AND soort = :soort
            """;

    private static final String TASK_COMPLETE_OPEN_FOR_NOTIFICATION = """
            DELETE FROM taak WHERE notificatie = :notificatie AND soort <> 'verwerken'
            """;

    private static final String TASK_POSTPONE = """
            UPDATE taak SET due = :due, lease_tot = NULL, laatste_fout = :fout,
                   payload = jsonb_set(payload, '{uitstel}', to_jsonb(coalesce((payload->>'uitstel')::int, 0) + 1))
             WHERE id = :id AND claim_epoch = :epoch
            """;

    private static final String TASK_RECORD_FAILURE = """
            UPDATE taak SET due = :due, lease_tot = NULL, laatste_fout = :fout, pogingenteller = pogingenteller + 1
             WHERE id = :id AND claim_epoch = :epoch
            RETURNING pogingenteller
            """;

    private static final String TASK_MARK_FAILED = """
            UPDATE taak SET status = 'mislukt', lease_tot = NULL, laatste_fout = :fout
             WHERE id = :id AND claim_epoch = :epoch
            """;

    private static final String TASK_EXTEND_LEASE = """
            UPDATE taak SET lease_tot = :leaseUntil WHERE id = :id AND claim_epoch = :epoch
            """;

    /** A task to plan. */
    public record NewTask(TaskKind kind, UUID dvId, UUID notificatie, UUID poging, Long ontvangst,
                          Instant ontvangstCompletedAt, Instant due, String traceId, String payload) {

        public static NewTask forNotification(TaskKind kind, UUID dvId, UUID notificatie, Instant due, String traceId) {
            return new NewTask(kind, dvId, notificatie, null, null, null, due, traceId, "{}");
        }

        public NewTask withPoging(UUID pogingId) {
            return new NewTask(kind, dvId, notificatie, pogingId, ontvangst, ontvangstCompletedAt, due, traceId, payload);
        }
    }

    /** A DV with due work of a kind, and how much. */
    public record DueWork(UUID dvId, long backlog) {
    }

    /**
     * Plans a task. Returns {@code false} when an equal task is already planned (the unique indexes on
     * (notificatie, soort) and, for receipts, (poging, completed_at) make planning idempotent).
     */
    public boolean taskInsert(Connection connection, NewTask task) {
        return Sql.on(connection, TASK_INSERT)
                .bind("soort", task.kind()).bind("dvId", task.dvId()).bind("notificatie", task.notificatie())
                .bind("poging", task.poging()).bind("ontvangst", task.ontvangst())
                .bind("ontvangstCompletedAt", task.ontvangstCompletedAt()).bind("due", task.due())
                .bind("traceId", task.traceId()).bind("payload", task.payload())
                .update() == 1;
    }

    /** The DVs with claimable work of a kind, oldest due first. Reads without locking. */
    public List<DueWork> taskDueDvs(Connection connection, TaskKind kind, Instant now, int maxDvs) {
        return Sql.on(connection, TASK_DUE_DVS).bind("soort", kind).bind("now", now).bind("maxDvs", maxDvs)
                .list(row -> new DueWork(row.uuid("dv_id"), row.longValue("backlog")));
    }

    /**
     * Claims up to {@code limit} due tasks of one DV: leases them until {@code leaseUntil} and raises their
     * claim epoch. Concurrency: rows locked by others (task or notification) are skipped, never waited for;
     * the locks are held until the caller's transaction ends.
     */
    public List<Task> taskClaimDue(Connection connection, TaskKind kind, UUID dvId, int limit, Instant now,
                                   Instant leaseUntil) {
        return Sql.on(connection, TASK_CLAIM_DUE).bind("soort", kind).bind("dvId", dvId).bind("limit", limit)
                .bind("now", now).bind("leaseUntil", leaseUntil).list(TaskRepository::task);
    }

    /**
     * Locks the task row if this claim still owns it. Call after locking the notification (lock order:
     * notification before its tasks). {@code false}: another worker re-claimed it; do not write.
     */
    public boolean taskLockOwned(Connection connection, Task task) {
        return Sql.on(connection, TASK_OWNED_LOCK).bind("id", task.id()).bind("epoch", task.claimEpoch())
                .optional(row -> row.longValue("id")).isPresent();
    }

    /** Deletes the task (completed tasks are deleted). {@code false}: no longer ours. */
    public boolean taskComplete(Connection connection, Task task) {
        return Sql.on(connection, TASK_COMPLETE).bind("id", task.id()).bind("epoch", task.claimEpoch()).update() == 1;
    }

    /** Completes the open task of a kind of a notification, whoever holds it (e.g. a receipt ends reconciliation). */
    public int taskCompleteForNotification(Connection connection, UUID notificatie, TaskKind kind) {
        return Sql.on(connection, TASK_COMPLETE_FOR_NOTIFICATION).bind("notificatie", notificatie)
                .bind("soort", kind).update();
    }

    /** Completes every planned task of a notification except receipts (used when it becomes terminal). */
    public int taskCompleteAllForNotification(Connection connection, UUID notificatie) {
        return Sql.on(connection, TASK_COMPLETE_OPEN_FOR_NOTIFICATION).bind("notificatie", notificatie).update();
    }

    /**
     * Postpones after a failure of a party the NMC calls: the attempt counter does not rise (design §6).
     * The number of postponements is kept in the payload for the backoff.
     */
    public boolean taskPostpone(Connection connection, Task task, Instant due, String fout) {
        return Sql.on(connection, TASK_POSTPONE).bind("id", task.id()).bind("epoch", task.claimEpoch())
                .bind("due", due).bind("fout", fout).update() == 1;
    }

    /** Counts an NMC-internal failure and postpones; returns the new counter, or empty when no longer ours. */
    public Optional<Integer> taskRecordFailure(Connection connection, Task task, Instant due, String fout) {
        return Sql.on(connection, TASK_RECORD_FAILURE).bind("id", task.id()).bind("epoch", task.claimEpoch())
                .bind("due", due).bind("fout", fout).optional(row -> row.integer("pogingenteller"));
    }

    /** Parks an exhausted task for an operator ({@code mislukt}). */
    public boolean taskMarkFailed(Connection connection, Task task, String fout) {
        return Sql.on(connection, TASK_MARK_FAILED).bind("id", task.id()).bind("epoch", task.claimEpoch())
                .bind("fout", fout).update() == 1;
    }

    /** Extends the lease before an external call. {@code false}: no longer ours; do not call. */
    public boolean taskExtendLease(Connection connection, Task task, Instant leaseUntil) {
        return Sql.on(connection, TASK_EXTEND_LEASE).bind("id", task.id()).bind("epoch", task.claimEpoch())
                .bind("leaseUntil", leaseUntil).update() == 1;
    }

    static Task task(Sql.Row row) throws SQLException {
        return new Task(row.longValue("id"), TaskKind.of(row.string("soort")), row.uuid("dv_id"),
                row.uuid("notificatie"), row.uuid("poging"), row.nullableLong("ontvangst"), row.instant("due"),
                row.instant("lease_tot"), row.longValue("claim_epoch"), row.integer("pogingenteller"),
                row.string("trace_id"), row.string("payload"));
    }
}
