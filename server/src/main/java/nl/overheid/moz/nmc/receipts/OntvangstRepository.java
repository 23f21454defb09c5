package nl.overheid.moz.nmc.receipts;

import java.sql.Connection;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import nl.overheid.moz.nmc.db.Sql;

/** All SQL of {@code ontvangst}, the receipt store. */
public final class OntvangstRepository {

    /** The attempt a reference names, with what a receipt task needs to know about its notification. */
    public record Target(UUID poging, UUID notificatie, UUID dvId, String traceId) {
    }

    private static final String TARGET = """
            SELECT p.id AS poging, n.id AS notificatie, n.dv_id, n.trace_id
              FROM poging p JOIN notificatie n ON n.id = p.notificatie
             WHERE p.id = :poging
            """;

    private static final String ONTVANGST_INSERT = """
            INSERT INTO ontvangst (poging, notify_id, status, notify_created_at, completed_at, sent_at,
                                   notification_type, template_id, template_version, ontvangen_op)
            VALUES (:poging, :notifyId, :status, :createdAt, :completedAt, :sentAt, :type, :templateId,
                    :templateVersion, :now)
            ON CONFLICT ON CONSTRAINT ontvangst_dedup_uk DO NOTHING
            RETURNING id
            """;

    private static final String ONTVANGST_UNPROCESSED = """
            SELECT id, poging, notify_id, status, completed_at
              FROM ontvangst
             WHERE poging = :poging AND verwerkt_op IS NULL
             ORDER BY completed_at NULLS LAST, id
            """;

    private static final String ONTVANGST_PENDING_FOR_NOTIFICATION = """
            SELECT EXISTS (SELECT 1 FROM ontvangst o JOIN poging p ON p.id = o.poging
                            WHERE p.notificatie = :notificatie AND o.verwerkt_op IS NULL) AS pending
            """;

    private static final String ONTVANGST_MARK_PROCESSED = """
            UPDATE ontvangst SET verwerkt_op = :now WHERE id = :id
            """;

    /** A receipt as it arrives, minus the recipient. */
    public record Incoming(UUID poging, UUID notifyId, String status, Instant createdAt, Instant completedAt,
                           Instant sentAt, String notificationType, UUID templateId, Integer templateVersion) {
    }

    public Optional<Target> target(Connection connection, UUID poging) {
        return Sql.on(connection, TARGET).bind("poging", poging).optional(row -> new Target(row.uuid("poging"),
                row.uuid("notificatie"), row.uuid("dv_id"), row.string("trace_id")));
    }

    /** Stores a receipt; empty when the same receipt was stored before (NotifyNL retries callbacks). */
    public Optional<Long> ontvangstInsert(Connection connection, Incoming receipt, Instant now) {
        return Sql.on(connection, ONTVANGST_INSERT).bind("poging", receipt.poging()).bind("notifyId", receipt.notifyId())
                .bind("status", receipt.status()).bind("createdAt", receipt.createdAt())
                .bind("completedAt", receipt.completedAt()).bind("sentAt", receipt.sentAt())
                .bind("type", receipt.notificationType()).bind("templateId", receipt.templateId())
                .bind("templateVersion", receipt.templateVersion()).bind("now", now)
                .optional(row -> row.longValue("id"));
    }

    /** The attempt's receipts not yet processed, in their own completed_at order. */
    public List<Ontvangst> ontvangstUnprocessed(Connection connection, UUID poging) {
        return Sql.on(connection, ONTVANGST_UNPROCESSED).bind("poging", poging).list(row -> new Ontvangst(
                row.longValue("id"), row.uuid("poging"), row.uuid("notify_id"), row.string("status"),
                row.instant("completed_at")));
    }

    /** Whether a stored receipt of any attempt of the notification still waits for its receipt task. */
    public boolean ontvangstPending(Connection connection, UUID notificatie) {
        return Sql.on(connection, ONTVANGST_PENDING_FOR_NOTIFICATION).bind("notificatie", notificatie)
                .one(row -> row.bool("pending"));
    }

    public void ontvangstMarkProcessed(Connection connection, long id, Instant now) {
        Sql.on(connection, ONTVANGST_MARK_PROCESSED).bind("id", id).bind("now", now).update();
    }
}
