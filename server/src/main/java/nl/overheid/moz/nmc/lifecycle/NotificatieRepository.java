package nl.overheid.moz.nmc.lifecycle;

import io.helidon.dbclient.DbRow;
import io.helidon.dbclient.DbTransaction;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import nl.overheid.moz.nmc.db.DbTypes;
import nl.overheid.moz.nmc.db.Statement;

/**
 * Reads of {@code notificatie}: the DV's status view (always scoped to the caller's DV, so another DV's
 * notification does not exist) and the sealed data the send task needs. No writes here: status is written
 * only by {@link Transitions}.
 */
public final class NotificatieRepository {

    private static final String VIEW_COLUMNS = """
            n.id, n.status, n.versie, n.laatste_reden, n.berichttype, n.regie, n.batch_id, n.geldig_tot,
            n.aangenomen_op,
            (SELECT max(e.tijdstip) FROM event e
              WHERE e.notificatie = n.id AND e.naar = 'definitief-bezorgd') AS definitief_op
            """;

    private static final Statement NOTIFICATIE_VIEW = Statement.named("view", """
            SELECT %s FROM notificatie n WHERE n.id = :id AND n.dv_id = :dvId
            """.formatted(VIEW_COLUMNS));

    private static final Statement NOTIFICATIE_BY_DVREF = Statement.named("byDvRef", """
            SELECT %s FROM notificatie n
             WHERE n.dv_id = :dvId AND n.dvref_hmac = ANY (CAST(:hmacs AS bytea[]))
             ORDER BY n.aangenomen_op, n.id
             LIMIT :limit
            """.formatted(VIEW_COLUMNS));

    private static final Statement NOTIFICATIE_FOR_SENDING = Statement.named("forSending", """
            SELECT n.id, n.dv_id, n.berichttype, n.regie, n.geldig_tot, n.ontvanger_versleuteld,
                   n.personalisatie_versleuteld, n.datasleutel_gewrapt, n.kek_versie
              FROM notificatie n WHERE n.id = :id
            """);

    private static final Statement NOTIFICATIE_PROCESSING_CONTEXT = Statement.named("notificatieProcessingContext", """
            SELECT n.id, n.regie, n.trace_id, n.aanname_span_id, n.ldv_betrokkene, n.ldv_betrokkene_type,
                   b.verwerkingsactiviteit
              FROM notificatie n JOIN berichttype b ON b.code = n.berichttype
             WHERE n.id = :id
            """);

    private static final Statement NOTIFICATIE_PROCESSING_CONTEXTS = Statement.named("notificatieProcessingContexts", """
            SELECT n.id, n.regie, n.trace_id, n.aanname_span_id, n.ldv_betrokkene, n.ldv_betrokkene_type,
                   b.verwerkingsactiviteit
              FROM notificatie n JOIN berichttype b ON b.code = n.berichttype
             WHERE n.id = ANY (CAST(:ids AS uuid[]))
            """);


    /** The status view of one notification. */
    public record View(UUID id, NotificatieStatus status, int version, Reden reden, String berichttype, String regime,
                       String batchId, Instant validUntil, Instant acceptedAt, Instant definitiefOp) {
    }

    /**
     * What the send task needs: the encrypted recipient and personalisation with the wrapped data key
     * ({@code null} once erased), and geldig_tot (fixed at acceptance, so it needs no lock to read).
     */
    public record ForSending(UUID id, UUID dvId, String berichttype, String regime, Instant validUntil,
                             byte[] recipient, byte[] personalisation, byte[] wrappedDataKey, int kekVersion) {

        /** Whether {@code geldig_tot} has passed at {@code now}. */
        public boolean expiredAt(Instant now) {
            return validUntil != null && !now.isBefore(validUntil);
        }
    }

    /**
     * What every LDV record about the notification names: its trace and the acceptance's span, the
     * berichttype's processing activity and the pseudonymised data subject. Nothing here needs decrypting.
     */
    public record ProcessingContext(UUID id, String regime, String traceId, String acceptanceSpanId,
                                    String processingActivity, String dataSubject, String dataSubjectType) {
    }


    public Optional<View> view(DbTransaction tx, UUID dvId, UUID id) {
        return NOTIFICATIE_VIEW.get(tx).addParam("id", id).addParam("dvId", dvId).execute()
                .map(NotificatieRepository::viewOf);
    }

    public List<View> byDvRef(DbTransaction tx, UUID dvId, List<byte[]> hmacs, int limit) {
        return NOTIFICATIE_BY_DVREF.query(tx).addParam("dvId", dvId).addParam("hmacs", hmacs.toArray(new byte[0][]))
                .addParam("limit", limit).execute().map(NotificatieRepository::viewOf).toList();
    }

    public Optional<ForSending> forSending(DbTransaction tx, UUID id) {
        return NOTIFICATIE_FOR_SENDING.get(tx).addParam("id", id).execute().map(row -> new ForSending(
                DbTypes.uuid(row, "id"), DbTypes.uuid(row, "dv_id"), DbTypes.text(row, "berichttype"),
                DbTypes.text(row, "regie"), DbTypes.instant(row, "geldig_tot"),
                row.column("ontvanger_versleuteld").get(byte[].class),
                row.column("personalisatie_versleuteld").get(byte[].class),
                row.column("datasleutel_gewrapt").get(byte[].class), DbTypes.integer(row, "kek_versie")));
    }

    public Optional<ProcessingContext> processingContext(DbTransaction tx, UUID id) {
        return NOTIFICATIE_PROCESSING_CONTEXT.get(tx).addParam("id", id).execute()
                .map(NotificatieRepository::processingContext);
    }

    /** The processing contexts of several notifications at once (those that still exist). */
    public List<ProcessingContext> processingContexts(DbTransaction tx, java.util.Collection<UUID> ids) {
        return NOTIFICATIE_PROCESSING_CONTEXTS.query(tx).addParam("ids", ids.toArray(UUID[]::new)).execute()
                .map(NotificatieRepository::processingContext).toList();
    }

    private static ProcessingContext processingContext(io.helidon.dbclient.DbRow row) {
        return new ProcessingContext(DbTypes.uuid(row, "id"), DbTypes.text(row, "regie"),
                DbTypes.text(row, "trace_id"), DbTypes.text(row, "aanname_span_id"),
                DbTypes.text(row, "verwerkingsactiviteit"), DbTypes.text(row, "ldv_betrokkene"),
                DbTypes.text(row, "ldv_betrokkene_type"));
    }


    private static View viewOf(DbRow row) {
        return new View(DbTypes.uuid(row, "id"), NotificatieStatus.of(DbTypes.text(row, "status")),
                DbTypes.integer(row, "versie"), Reden.ofNullable(DbTypes.text(row, "laatste_reden")),
                DbTypes.text(row, "berichttype"), DbTypes.text(row, "regie"), DbTypes.text(row, "batch_id"),
                DbTypes.instant(row, "geldig_tot"), DbTypes.instant(row, "aangenomen_op"),
                DbTypes.instant(row, "definitief_op"));
    }
}
