package nl.overheid.moz.nmc.lifecycle;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import nl.overheid.moz.nmc.db.Sql;

/**
 * Reads of {@code notificatie}: the DV's status view (always scoped to the caller's DV, so another DV's
 * notification does not exist) and the sealed data the send task needs. No writes here: status is written
 * only by {@link Transitions}.
 */
public final class NotificatieReads {

    private static final String VIEW_COLUMNS = """
            n.id, n.status, n.versie, n.laatste_reden, n.berichttype, n.regie, n.batch_id, n.geldig_tot,
            n.aangenomen_op,
            (SELECT max(e.tijdstip) FROM event e
              WHERE e.notificatie = n.id AND e.naar = 'definitief-bezorgd') AS definitief_op
            """;

    private static final String NOTIFICATIE_VIEW = """
            SELECT %s FROM notificatie n WHERE n.id = :id AND n.dv_id = :dvId
            """.formatted(VIEW_COLUMNS);

    private static final String NOTIFICATIE_BY_DVREF = """
            SELECT %s FROM notificatie n
             WHERE n.dv_id = :dvId AND n.dvref_hmac = ANY (:hmacs)
             ORDER BY n.aangenomen_op, n.id
             LIMIT :limit
            """.formatted(VIEW_COLUMNS);

    private static final String NOTIFICATIE_FOR_SENDING = """
            SELECT n.id, n.dv_id, n.berichttype, n.regie, n.geldig_tot, n.ontvanger_versleuteld,
                   n.personalisatie_versleuteld, n.datasleutel_gewrapt, n.kek_versie
              FROM notificatie n WHERE n.id = :id
            """;

    private static final String ACCEPTED_SINCE = """
            SELECT count(*) AS aantal, min(aangenomen_op) AS oudste
              FROM notificatie WHERE dv_id = :dvId AND aangenomen_op > :since
            """;

    /** The status view of one notification. */
    public record View(UUID id, NotificatieStatus status, int versie, Reden reden, String berichttype, String regie,
                       String batchId, Instant geldigTot, Instant aangenomenOp, Instant definitiefOp) {
    }

    /**
     * What the send task needs: the encrypted recipient and personalisation with the wrapped data key
     * ({@code null} once erased), and geldig_tot (fixed at acceptance, so it needs no lock to read).
     */
    public record ForSending(UUID id, UUID dvId, String berichttype, String regie, Instant geldigTot,
                             byte[] ontvanger, byte[] personalisatie, byte[] datasleutelGewrapt, int kekVersie) {
    }

    /** Acceptances of a DV since a moment, and the oldest of them (for the quota's Retry-After). */
    public record Acceptances(long count, Instant oldest) {
    }

    public Optional<View> notificatieView(Connection connection, UUID dvId, UUID id) {
        return Sql.on(connection, NOTIFICATIE_VIEW).bind("id", id).bind("dvId", dvId).optional(NotificatieReads::view);
    }

    public List<View> notificatieByDvRef(Connection connection, UUID dvId, List<byte[]> hmacs, int limit) {
        return Sql.on(connection, NOTIFICATIE_BY_DVREF).bind("dvId", dvId).bind("hmacs", hmacs.toArray(new byte[0][]))
                .bind("limit", limit).list(NotificatieReads::view);
    }

    public Optional<ForSending> notificatieForSending(Connection connection, UUID id) {
        return Sql.on(connection, NOTIFICATIE_FOR_SENDING).bind("id", id).optional(row -> new ForSending(
                row.uuid("id"), row.uuid("dv_id"), row.string("berichttype"), row.string("regie"),
                row.instant("geldig_tot"), row.bytes("ontvanger_versleuteld"), row.bytes("personalisatie_versleuteld"),
                row.bytes("datasleutel_gewrapt"), row.integer("kek_versie")));
    }

    public Acceptances acceptedSince(Connection connection, UUID dvId, Instant since) {
        return Sql.on(connection, ACCEPTED_SINCE).bind("dvId", dvId).bind("since", since)
                .one(row -> new Acceptances(row.longValue("aantal"), row.instant("oudste")));
    }

    private static View view(Sql.Row row) throws SQLException {
        return new View(row.uuid("id"), NotificatieStatus.of(row.string("status")), row.integer("versie"),
                Reden.ofNullable(row.string("laatste_reden")), row.string("berichttype"), row.string("regie"),
                row.string("batch_id"), row.instant("geldig_tot"), row.instant("aangenomen_op"),
                row.instant("definitief_op"));
    }
}
