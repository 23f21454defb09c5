package nl.overheid.moz.nmc.webhook;

import io.helidon.dbclient.DbRow;
import io.helidon.dbclient.DbTransaction;
import java.net.URI;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import nl.overheid.moz.nmc.db.DbTypes;
import nl.overheid.moz.nmc.db.Statement;

/**
 * The SQL of the webhook's delivery position per DV ({@code webhookpositie}), with the DV's webhook from the
 * register. The position is the last event delivered with a 2xx; it is not an acknowledgement. The position and
 * the DV's one {@code terugkoppelen} task are planned together, from the register, in one set-based insert each, and
 * removed together when the DV's webhook is gone. A position holds the event log's partitions (design §10) only
 * while its DV has a webhook and it moved within the DV's max cursor age.
 */
public final class WebhookPositionRepository {

    private static final String COLUMNS = """
            w.dv_id, w.cluster_epoch, CAST(w.transactie_id AS text) AS transactie_id, w.event_id, w.mislukkingen,
                   w.pauzes, w.gepauzeerd_tot, w.geleverd_op, w.laatste_fout, d.webhook_url,
                   d.webhook_max_mislukkingen
              FROM webhookpositie w JOIN dienstverlener d ON d.id = w.dv_id
             WHERE w.dv_id = :dvId
            """;

    private static final Statement WEBHOOK_POSITION_LOCK =
            Statement.named("webhookPositionLock", "SELECT " + COLUMNS + " FOR UPDATE OF w");

    private static final Statement WEBHOOK_POSITION_GET = Statement.named("webhookPositionGet", "SELECT " + COLUMNS);

    private static final Statement WEBHOOK_POSITION_DELIVERED = Statement.named("webhookPositionDelivered", """
            UPDATE webhookpositie SET cluster_epoch = :epoch, transactie_id = CAST(:xid AS xid8), event_id = :eventId,
                   mislukkingen = 0, pauzes = 0, gepauzeerd_tot = NULL, geleverd_op = :now, laatste_fout = NULL
             WHERE dv_id = :dvId
            """);

    private static final Statement WEBHOOK_POSITION_FAILED = Statement.named("webhookPositionFailed", """
            UPDATE webhookpositie SET mislukkingen = :mislukkingen, pauzes = :pauzes, gepauzeerd_tot = :until,
                   laatste_fout = :fout
             WHERE dv_id = :dvId
            """);

    private static final Statement WEBHOOK_POSITION_RESTART = Statement.named("webhookPositionRestart", """
            UPDATE webhookpositie SET cluster_epoch = :epoch, transactie_id = NULL, event_id = NULL WHERE dv_id = :dvId
            """);

    private static final Statement WEBHOOK_POSITION_RESUME = Statement.named("webhookPositionResume", """
            UPDATE webhookpositie SET mislukkingen = 0, pauzes = 0, gepauzeerd_tot = NULL WHERE dv_id = :dvId
            """);

    /** Every DV with a webhook gets a position row (made now: its age counts from here) and its one task. */
    private static final Statement WEBHOOK_POSITION_ENSURE = Statement.named("webhookPositionEnsure", """
            INSERT INTO webhookpositie (dv_id, aangemaakt_op)
            SELECT id, :now FROM dienstverlener WHERE webhook_url IS NOT NULL
            ON CONFLICT DO NOTHING
            """);

    /* A position made before its age was kept gets one now, on the NMC's clock (the migration had no clock). */
    private static final Statement WEBHOOK_POSITION_STAMP = Statement.named("webhookPositionStamp", """
            UPDATE webhookpositie SET aangemaakt_op = :now WHERE aangemaakt_op IS NULL
            """);

    /* The positions of DVs whose webhook is gone: they would otherwise hold the event log (design §10). */
    private static final Statement WEBHOOK_POSITION_FORGET_REMOVED =
            Statement.named("webhookPositionForgetRemoved", """
            DELETE FROM webhookpositie w USING dienstverlener d
             WHERE d.id = w.dv_id AND d.webhook_url IS NULL
            RETURNING w.dv_id
            """);

    /* ... and their terugkoppelen tasks, after the positions (the task's own lock order: position, then task). */
    private static final Statement WEBHOOK_TASK_FORGET = Statement.named("webhookTaskForget", """
            DELETE FROM taak WHERE soort = 'terugkoppelen' AND dv_id = ANY (CAST(:dvIds AS uuid[]))
            """);

    private static final Statement WEBHOOK_POSITION_REMOVE = Statement.named("webhookPositionRemove", """
            DELETE FROM webhookpositie WHERE dv_id = :dvId
            """);

    private static final Statement WEBHOOK_TASK_ENSURE = Statement.named("webhookTaskEnsure", """
            INSERT INTO taak (soort, dv_id, due)
            SELECT 'terugkoppelen', d.id, :now FROM dienstverlener d
             WHERE d.webhook_url IS NOT NULL
            ON CONFLICT DO NOTHING
            """);

    /**
     * The state of one DV's webhook.
     *
     * @param transactieId the delivery position (with {@code eventId}); null before the first delivery
     * @param webhookUrl   null when the DV has no webhook (any more)
     */
    public record Position(
            UUID dvId,
            Integer epoch,
            String transactionId,
            Long eventId,
            int mislukkingen,
            int pauzes,
            Instant gepauzeerdTot,
            Instant geleverdOp,
            String lastError,
            URI webhookUrl,
            int maxFailures) {

        boolean pausedAt(Instant now) {
            return gepauzeerdTot != null && gepauzeerdTot.isAfter(now);
        }
    }

    public Optional<Position> lock(DbTransaction tx, UUID dvId) {
        return WEBHOOK_POSITION_LOCK.get(tx).addParam("dvId", dvId).execute().map(WebhookPositionRepository::position);
    }

    public Optional<Position> get(DbTransaction tx, UUID dvId) {
        return WEBHOOK_POSITION_GET.get(tx).addParam("dvId", dvId).execute().map(WebhookPositionRepository::position);
    }

    void delivered(DbTransaction tx, UUID dvId, int epoch, String transactionId, long eventId, Instant now) {
        WEBHOOK_POSITION_DELIVERED
                .dml(tx)
                .addParam("dvId", dvId)
                .addParam("epoch", epoch)
                .addParam("xid", transactionId)
                .addParam("eventId", eventId)
                .addParam("now", now)
                .execute();
    }

    void failed(DbTransaction tx, UUID dvId, int mislukkingen, int pauzes, Instant until, String error) {
        WEBHOOK_POSITION_FAILED
                .dml(tx)
                .addParam("dvId", dvId)
                .addParam("mislukkingen", mislukkingen)
                .addParam("pauzes", pauzes)
                .addParam("until", until)
                .addParam("fout", error)
                .execute();
    }

    /** After a restore or promotion the position means nothing: deliver from the oldest event again. */
    void restart(DbTransaction tx, UUID dvId, int epoch) {
        WEBHOOK_POSITION_RESTART
                .dml(tx)
                .addParam("dvId", dvId)
                .addParam("epoch", epoch)
                .execute();
    }

    void resume(DbTransaction tx, UUID dvId) {
        WEBHOOK_POSITION_RESUME.dml(tx).addParam("dvId", dvId).execute();
    }

    /**
     * Stamps positions without an age, forgets the positions and tasks of DVs whose webhook is gone, and plans what
     * is missing for DVs with a webhook; returns the number of tasks planned.
     */
    long ensure(DbTransaction tx, Instant now) {
        WEBHOOK_POSITION_STAMP.dml(tx).addParam("now", now).execute();
        UUID[] removed = WEBHOOK_POSITION_FORGET_REMOVED
                .query(tx)
                .execute()
                .map(row -> DbTypes.uuid(row, "dv_id"))
                .toArray(UUID[]::new);
        if (removed.length > 0) {
            WEBHOOK_TASK_FORGET.dml(tx).addParam("dvIds", removed).execute();
        }
        WEBHOOK_POSITION_ENSURE.dml(tx).addParam("now", now).execute();
        return WEBHOOK_TASK_ENSURE.dml(tx).addParam("now", now).execute();
    }

    /** The DV no longer has a webhook: its position goes (it would hold the event log); the caller holds its lock. */
    void remove(DbTransaction tx, UUID dvId) {
        WEBHOOK_POSITION_REMOVE.dml(tx).addParam("dvId", dvId).execute();
    }

    private static Position position(DbRow row) {
        String url = DbTypes.text(row, "webhook_url");
        Long epoch = DbTypes.nullableLong(row, "cluster_epoch");
        return new Position(
                DbTypes.uuid(row, "dv_id"),
                epoch == null ? null : epoch.intValue(),
                DbTypes.text(row, "transactie_id"),
                DbTypes.nullableLong(row, "event_id"),
                DbTypes.integer(row, "mislukkingen"),
                DbTypes.integer(row, "pauzes"),
                DbTypes.instant(row, "gepauzeerd_tot"),
                DbTypes.instant(row, "geleverd_op"),
                DbTypes.text(row, "laatste_fout"),
                url == null ? null : URI.create(url),
                DbTypes.integer(row, "webhook_max_mislukkingen"));
    }
}
