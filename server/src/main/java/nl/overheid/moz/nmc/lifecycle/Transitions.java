package nl.overheid.moz.nmc.lifecycle;

import java.sql.Connection;
import java.time.Clock;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import nl.overheid.moz.nmc.db.Sql;

/**
 * The one transition function: the only writer of {@code notificatie.status}.
 *
 * <p>Every transition runs inside the caller's transaction and follows the same steps: lock the
 * notification row ({@link #lock}), check the pair against {@link AllowedTransitions}, raise {@code versie}
 * by one and write the event whose {@code volgnummer} equals the new {@code versie}. The database trigger
 * refuses anything else, so a code path that bypasses this class fails at commit.
 *
 * <p>Lock order: the notification row is locked before any write on it or on its tasks and attempts.
 */
public final class Transitions {

    private static final String LOCK = """
            SELECT id, dv_id, status, versie, laatste_reden, geldig_tot, berichttype, regie, trace_id
              FROM notificatie
             WHERE id = :id
               FOR UPDATE
            """;

    private static final String UPDATE_STATUS = """
            UPDATE notificatie
               SET status = :naar, versie = versie + 1, laatste_reden = :reden
             WHERE id = :id AND versie = :versie
            """;

    private static final String INSERT_EVENT = """
            INSERT INTO event (tijdstip, dv_id, notificatie, volgnummer, van, naar, reden)
            VALUES (:tijdstip, :dvId, :notificatie, :volgnummer, :van, :naar, :reden)
            """;

    private static final String INSERT_NOTIFICATIE = """
            INSERT INTO notificatie (id, dv_id, dvref_hmac, pepper_versie, payload_hmac, batch_id, berichttype,
                                     regie, status, versie, geldig_tot, ontvanger_versleuteld,
                                     personalisatie_versleuteld, datasleutel_gewrapt, kek_versie, trace_id,
                                     aangenomen_op)
            VALUES (:id, :dvId, :dvrefHmac, :pepperVersie, :payloadHmac, :batchId, :berichttype,
                    :regie, 'aangenomen', 1, :geldigTot, :ontvanger, :personalisatie, :datasleutel, :kekVersie,
                    :traceId, :aangenomenOp)
            ON CONFLICT (dv_id, dvref_hmac, payload_hmac) DO NOTHING
            """;

    private static final String FIND_BY_IDEMPOTENCY_KEY = """
            SELECT id, dv_id, status, versie, laatste_reden, geldig_tot, berichttype, regie, trace_id
              FROM notificatie
             WHERE dv_id = :dvId AND dvref_hmac = :dvrefHmac AND payload_hmac = :payloadHmac
            """;

    private final Clock clock;

    public Transitions(Clock clock) {
        this.clock = Objects.requireNonNull(clock);
    }

    /** A notification as locked in the current transaction. */
    public record Locked(UUID id, UUID dvId, NotificatieStatus status, int versie, Reden reden, Instant geldigTot,
                         String berichttype, String regie, String traceId) {

        /** Whether {@code geldig_tot} has passed at {@code now}: no attempt may start any more. */
        public boolean expiredAt(Instant now) {
            return geldigTot != null && !now.isBefore(geldigTot);
        }
    }

    /** What acceptance produced: the new notification, or the existing one for a repeated request. */
    public record Acceptance(Locked notificatie, boolean created) {
    }

    /**
     * Locks the notification row ({@code SELECT … FOR UPDATE}) and returns its current state.
     *
     * <p>Concurrency: blocks while another transaction holds the row; callers that must not wait use a
     * {@code SKIP LOCKED} claim instead. Empty when the notification does not exist.
     */
    public Optional<Locked> lock(Connection connection, UUID notificatieId) {
        return Sql.on(connection, LOCK).bind("id", notificatieId).optional(Transitions::locked);
    }

    /**
     * Moves a locked notification to {@code naar} and writes its event; returns the new state.
     *
     * @throws TransitionRefused when (current status, naar) is not an allowed pair
     * @throws IllegalStateException when the row changed since it was locked (a bug: the lock prevents it)
     */
    public Locked apply(Connection connection, Locked current, NotificatieStatus naar, Reden reden) {
        if (!AllowedTransitions.allowed(current.status(), naar)) {
            throw new TransitionRefused(current.status(), naar);
        }
        int updated = Sql.on(connection, UPDATE_STATUS)
                .bind("naar", naar).bind("reden", reden)
                .bind("id", current.id()).bind("versie", current.versie())
                .update();
        if (updated != 1) {
            throw new IllegalStateException("notification " + current.id() + " changed under its row lock");
        }
        int volgnummer = current.versie() + 1;
        insertEvent(connection, current.dvId(), current.id(), volgnummer, current.status(), naar, reden);
        return new Locked(current.id(), current.dvId(), naar, volgnummer, reden, current.geldigTot(),
                current.berichttype(), current.regie(), current.traceId());
    }

    /**
     * The first transition, (none) → aangenomen: inserts the notification and its event with volgnummer 1.
     * A repeat of the same request (same DV, dvRef HMAC and payload HMAC) inserts nothing and returns the
     * existing notification.
     *
     * <p>Concurrency: two identical requests at once serialise on the unique index; the loser sees the
     * winner's row.
     */
    public Acceptance accept(Connection connection, NewNotificatie n) {
        int inserted = Sql.on(connection, INSERT_NOTIFICATIE)
                .bind("id", n.id()).bind("dvId", n.dvId())
                .bind("dvrefHmac", n.dvrefHmac()).bind("pepperVersie", n.pepperVersie())
                .bind("payloadHmac", n.payloadHmac()).bind("batchId", n.batchId())
                .bind("berichttype", n.berichttype()).bind("regie", n.regie())
                .bind("geldigTot", n.geldigTot())
                .bind("ontvanger", n.ontvangerVersleuteld()).bind("personalisatie", n.personalisatieVersleuteld())
                .bind("datasleutel", n.datasleutelGewrapt()).bind("kekVersie", n.kekVersie())
                .bind("traceId", n.traceId()).bind("aangenomenOp", clock.instant())
                .update();
        if (inserted == 1) {
            insertEvent(connection, n.dvId(), n.id(), 1, null, NotificatieStatus.AANGENOMEN, null);
            return new Acceptance(new Locked(n.id(), n.dvId(), NotificatieStatus.AANGENOMEN, 1, null, n.geldigTot(),
                    n.berichttype(), n.regie(), n.traceId()), true);
        }
        Locked existing = Sql.on(connection, FIND_BY_IDEMPOTENCY_KEY)
                .bind("dvId", n.dvId()).bind("dvrefHmac", n.dvrefHmac()).bind("payloadHmac", n.payloadHmac())
                .one(Transitions::locked);
        return new Acceptance(existing, false);
    }

    /** The notification an identical earlier request created (same DV, dvRef HMAC and payload HMAC), if any. */
    public Optional<Locked> findAccepted(Connection connection, UUID dvId, byte[] dvrefHmac, byte[] payloadHmac) {
        return Sql.on(connection, FIND_BY_IDEMPOTENCY_KEY).bind("dvId", dvId).bind("dvrefHmac", dvrefHmac)
                .bind("payloadHmac", payloadHmac).optional(Transitions::locked);
    }

    private void insertEvent(Connection connection, UUID dvId, UUID notificatie, int volgnummer,
                             NotificatieStatus van, NotificatieStatus naar, Reden reden) {
        Sql.on(connection, INSERT_EVENT)
                .bind("tijdstip", clock.instant()).bind("dvId", dvId).bind("notificatie", notificatie)
                .bind("volgnummer", volgnummer).bind("van", van).bind("naar", naar).bind("reden", reden)
                .update();
    }

    private static Locked locked(Sql.Row row) throws java.sql.SQLException {
        return new Locked(row.uuid("id"), row.uuid("dv_id"), NotificatieStatus.of(row.string("status")),
                row.integer("versie"), Reden.ofNullable(row.string("laatste_reden")), row.instant("geldig_tot"),
                row.string("berichttype"), row.string("regie"), row.string("trace_id"));
    }
}
