package nl.overheid.moz.nmc.receipts;

import io.helidon.dbclient.DbTransaction;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import nl.overheid.moz.nmc.db.DbTypes;
import nl.overheid.moz.nmc.db.Statement;

/** All SQL of {@code ontvangst}, the receipt store. */
public final class ReceiptRepository {

    /**
     * The attempt a reference names, with what a receipt task needs to know about its notification;
     * {@code notifyService}: the NotifyNL service that sent it (whose callback token may speak for it), which stays so
     * when its berichttype moves to another service.
     */
    public record Target(UUID poging, UUID notificatie, UUID dvId, String traceId, String notifyService) {}

    private static final Statement POGING_TARGET = Statement.named("pogingTarget", """
            SELECT p.id AS poging, n.id AS notificatie, n.dv_id, n.trace_id,
                   coalesce(p.notify_service, b.notify_service) AS notify_service
              FROM poging p
              JOIN notificatie n ON n.id = p.notificatie
              JOIN berichttype b ON b.code = n.berichttype
             WHERE p.id = :poging
            """);

    private static final Statement ONTVANGST_INSERT = Statement.named("ontvangstInsert", """
            INSERT INTO ontvangst (poging, notify_id, status, notify_created_at, completed_at, sent_at,
                                   notification_type, template_id, template_version, ontvangen_op)
            VALUES (:poging, :notifyId, :status, :createdAt, :completedAt, :sentAt, :type, :templateId,
                    :templateVersion, :now)
            ON CONFLICT ON CONSTRAINT ontvangst_dedup_uk DO NOTHING
            RETURNING id
            """);

    private static final Statement ONTVANGST_UNPROCESSED = Statement.named("ontvangstUnprocessed", """
            SELECT id, poging, notify_id, status, completed_at
              FROM ontvangst
             WHERE poging = :poging AND verwerkt_op IS NULL
             ORDER BY completed_at NULLS LAST, id
            """);

    private static final Statement ONTVANGST_PENDING_FOR_NOTIFICATION = Statement.named("pendingForNotificatie", """
            SELECT EXISTS (SELECT 1 FROM ontvangst o JOIN poging p ON p.id = o.poging
                            WHERE p.notificatie = :notificatie AND o.verwerkt_op IS NULL) AS pending
            """);

    private static final Statement ONTVANGST_MARK_PROCESSED = Statement.named("ontvangstMarkProcessed", """
            UPDATE ontvangst SET verwerkt_op = :now WHERE id = :id
            """);

    /** A receipt as it arrives, minus the recipient. */
    public record Incoming(
            UUID poging,
            UUID notifyId,
            String status,
            Instant createdAt,
            Instant completedAt,
            Instant sentAt,
            String notificationType,
            UUID templateId,
            Integer templateVersion) {}

    public Optional<Target> target(DbTransaction tx, UUID poging) {
        return POGING_TARGET
                .get(tx)
                .addParam("poging", poging)
                .execute()
                .map(row -> new Target(
                        DbTypes.uuid(row, "poging"),
                        DbTypes.uuid(row, "notificatie"),
                        DbTypes.uuid(row, "dv_id"),
                        DbTypes.text(row, "trace_id"),
                        DbTypes.text(row, "notify_service")));
    }

    /** Stores a receipt; empty when the same receipt was stored before (NotifyNL retries callbacks). */
    public Optional<Long> insert(DbTransaction tx, Incoming receipt, Instant now) {
        return ONTVANGST_INSERT
                .get(tx)
                .addParam("poging", receipt.poging())
                .addParam("notifyId", receipt.notifyId())
                .addParam("status", receipt.status())
                .addParam("createdAt", receipt.createdAt())
                .addParam("completedAt", receipt.completedAt())
                .addParam("sentAt", receipt.sentAt())
                .addParam("type", receipt.notificationType())
                .addParam("templateId", receipt.templateId())
                .addParam("templateVersion", receipt.templateVersion())
                .addParam("now", now)
                .execute()
                .map(row -> DbTypes.longValue(row, "id"));
    }

    /** The attempt's receipts not yet processed, in their own completed_at order. */
    public List<Receipt> unprocessed(DbTransaction tx, UUID poging) {
        return ONTVANGST_UNPROCESSED
                .query(tx)
                .addParam("poging", poging)
                .execute()
                .map(row -> new Receipt(
                        DbTypes.longValue(row, "id"),
                        DbTypes.uuid(row, "poging"),
                        DbTypes.uuid(row, "notify_id"),
                        DbTypes.text(row, "status"),
                        DbTypes.instant(row, "completed_at")))
                .toList();
    }

    /** Whether a stored receipt of any attempt of the notification still waits for its receipt task. */
    public boolean pending(DbTransaction tx, UUID notificatie) {
        return ONTVANGST_PENDING_FOR_NOTIFICATION
                .get(tx)
                .addParam("notificatie", notificatie)
                .execute()
                .map(row -> row.column("pending").get(Boolean.class))
                .orElseThrow();
    }

    public void markProcessed(DbTransaction tx, long id, Instant now) {
        ONTVANGST_MARK_PROCESSED.dml(tx).addParam("id", id).addParam("now", now).execute();
    }
}
