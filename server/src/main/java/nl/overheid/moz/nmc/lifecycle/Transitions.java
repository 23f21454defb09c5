package nl.overheid.moz.nmc.lifecycle;

import io.helidon.dbclient.DbRow;
import io.helidon.dbclient.DbTransaction;
import java.time.Clock;
import java.time.Instant;
import java.util.Objects;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import nl.overheid.moz.nmc.db.DbTypes;
import nl.overheid.moz.nmc.db.Statement;

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

    private static final String LOCKED_COLUMNS =
            "id, dv_id, status, versie, laatste_reden, geldig_tot, berichttype, regie, trace_id, aanname_span_id";

    private static final Statement NOTIFICATIE_LOCK = Statement.named("notificatieLock", """
            SELECT %s FROM notificatie WHERE id = :id FOR NO KEY UPDATE
            """.formatted(LOCKED_COLUMNS));

    private static final Statement NOTIFICATIE_SET_STATUS = Statement.named("notificatieSetStatus", """
            UPDATE notificatie
               SET status = :naar, versie = versie + 1, laatste_reden = :reden, terminaal_sinds = :terminaalSinds
             WHERE id = :id AND versie = :versie
            """);

    private static final Statement EVENT_INSERT = Statement.named("eventInsert", """
            INSERT INTO event (tijdstip, dv_id, notificatie, volgnummer, van, naar, reden)
            VALUES (:tijdstip, :dvId, :notificatie, :volgnummer, :van, :naar, :reden)
            """);

    private static final Statement NOTIFICATIE_INSERT = Statement.named("notificatieInsert", """
            INSERT INTO notificatie (id, dv_id, dvref_hmac, pepper_versie, payload_hmac, payload_pepper_versie,
                                     batch_id, berichttype, regie, status, versie, geldig_tot, ontvanger_versleuteld,
                                     personalisatie_versleuteld, datasleutel_gewrapt, kek_versie, trace_id,
                                     aanname_span_id, ldv_betrokkene, ldv_betrokkene_type, ldv_pepper_versie,
                                     aangenomen_op)
            VALUES (:id, :dvId, :dvrefHmac, :pepperVersie, :payloadHmac, :payloadPepperVersie, :batchId, :berichttype,
                    :regie, 'aangenomen', 1, :geldigTot, :ontvanger, :personalisatie, :datasleutel, :kekVersie,
                    :traceId, :aannameSpanId, :ldvBetrokkene, :ldvBetrokkeneType, :ldvPepperVersie, :aangenomenOp)
            ON CONFLICT (dv_id, dvref_hmac, payload_hmac) DO NOTHING
            """);

    /* Under every pepper version still configured: an identical repeat is recognised across rotations. */
    private static final Statement NOTIFICATIE_BY_IDEMPOTENCY_KEY = Statement.named("notificatieByIdempotencyKey", """
            SELECT %s FROM notificatie
             WHERE dv_id = :dvId AND dvref_hmac = ANY (CAST(:dvrefHmacs AS bytea[]))
               AND payload_hmac = ANY (CAST(:payloadHmacs AS bytea[]))
             LIMIT 1
            """.formatted(LOCKED_COLUMNS));

    private final Clock clock;

    public Transitions(Clock clock) {
        this.clock = Objects.requireNonNull(clock);
    }

    /** A notification as locked in the current transaction. */
    public record Locked(UUID id, UUID dvId, NotificatieStatus status, int versie, Reden reden, Instant geldigTot,
                         String berichttype, String regie, String traceId, String aannameSpanId) {

        /** Whether the DV gave an identifying number (centralised) rather than an e-mail address. */
        public boolean centraal() {
            return "centraal".equals(regie);
        }

        /** Whether {@code geldig_tot} has passed at {@code now}: no attempt may start any more. */
        public boolean expiredAt(Instant now) {
            return geldigTot != null && !now.isBefore(geldigTot);
        }
    }

    /** What acceptance produced: the new notification, or the existing one for a repeated request. */
    public record Acceptance(Locked notificatie, boolean created) {
    }

    /**
     * Locks the notification row and returns its current state. {@code FOR NO KEY UPDATE}: it serialises
     * every writer of the notification, but not the inserts of its tasks, attempts and receipts, whose
     * foreign keys only take a key-share lock on it (with {@code FOR UPDATE} a send commit and a stored
     * receipt could deadlock through those).
     *
     * <p>Concurrency: blocks while another transaction holds the row. Empty when the notification does not
     * exist.
     */
    public Optional<Locked> lock(DbTransaction tx, UUID notificatieId) {
        return NOTIFICATIE_LOCK.get(tx).addParam("id", notificatieId).execute().map(Transitions::locked);
    }

    /**
     * Moves a locked notification to {@code naar} and writes its event; returns the new state.
     *
     * @throws TransitionRefused when (current status, naar) is not an allowed pair
     * @throws IllegalStateException when the row changed since it was locked (a bug: the lock prevents it)
     */
    public Locked apply(DbTransaction tx, Locked current, NotificatieStatus naar, Reden reden) {
        if (!AllowedTransitions.allowed(current.status(), naar)) {
            throw new TransitionRefused(current.status(), naar);
        }
        long updated = NOTIFICATIE_SET_STATUS.dml(tx)
                .addParam("naar", naar).addParam("reden", reden)
                // Erasure and retention count from the last time the notification became terminal.
                .addParam("terminaalSinds", naar.terminal() ? clock.instant() : null)
                .addParam("id", current.id()).addParam("versie", current.versie())
                .execute();
        if (updated != 1) {
            throw new IllegalStateException("notification " + current.id() + " changed under its row lock");
        }
        int volgnummer = current.versie() + 1;
        insertEvent(tx, current.dvId(), current.id(), volgnummer, current.status(), naar, reden);
        return new Locked(current.id(), current.dvId(), naar, volgnummer, reden, current.geldigTot(),
                current.berichttype(), current.regie(), current.traceId(), current.aannameSpanId());
    }

    /**
     * The first transition, (none) → aangenomen: inserts the notification and its event with volgnummer 1.
     * A repeat of the same request (same DV, dvRef HMAC and payload HMAC) inserts nothing and returns the
     * existing notification.
     *
     * <p>Concurrency: two identical requests at once serialise on the unique index; the loser sees the
     * winner's row.
     */
    public Acceptance accept(DbTransaction tx, NewNotificatie n) {
        long inserted = NOTIFICATIE_INSERT.dml(tx)
                .addParam("id", n.id()).addParam("dvId", n.dvId())
                .addParam("dvrefHmac", n.dvrefHmac()).addParam("pepperVersie", n.pepperVersie())
                .addParam("payloadHmac", n.payloadHmac()).addParam("payloadPepperVersie", n.payloadPepperVersie())
                .addParam("batchId", n.batchId()).addParam("ldvPepperVersie", n.ldvPepperVersie())
                .addParam("berichttype", n.berichttype()).addParam("regie", n.regie())
                .addParam("geldigTot", n.geldigTot())
                .addParam("ontvanger", n.ontvangerVersleuteld()).addParam("personalisatie", n.personalisatieVersleuteld())
                .addParam("datasleutel", n.datasleutelGewrapt()).addParam("kekVersie", n.kekVersie())
                .addParam("traceId", n.traceId()).addParam("aannameSpanId", n.aannameSpanId())
                .addParam("ldvBetrokkene", n.ldvBetrokkene()).addParam("ldvBetrokkeneType", n.ldvBetrokkeneType())
                .addParam("aangenomenOp", clock.instant())
                .execute();
        if (inserted == 1) {
            insertEvent(tx, n.dvId(), n.id(), 1, null, NotificatieStatus.AANGENOMEN, null);
            return new Acceptance(new Locked(n.id(), n.dvId(), NotificatieStatus.AANGENOMEN, 1, null, n.geldigTot(),
                    n.berichttype(), n.regie(), n.traceId(), n.aannameSpanId()), true);
        }
        return new Acceptance(findAccepted(tx, n.dvId(), List.of(n.dvrefHmac()), List.of(n.payloadHmac()))
                .orElseThrow(), false);
    }

    /** The notification an identical request created, under any of the given HMACs (one per pepper version). */
    public Optional<Locked> findAccepted(DbTransaction tx, UUID dvId, List<byte[]> dvrefHmacs, List<byte[]> payloadHmacs) {
        return NOTIFICATIE_BY_IDEMPOTENCY_KEY.get(tx).addParam("dvId", dvId)
                .addParam("dvrefHmacs", dvrefHmacs.toArray(byte[][]::new))
                .addParam("payloadHmacs", payloadHmacs.toArray(byte[][]::new)).execute().map(Transitions::locked);
    }

    private void insertEvent(DbTransaction tx, UUID dvId, UUID notificatie, int volgnummer,
                             NotificatieStatus van, NotificatieStatus naar, Reden reden) {
        EVENT_INSERT.dml(tx)
                .addParam("tijdstip", clock.instant()).addParam("dvId", dvId).addParam("notificatie", notificatie)
                .addParam("volgnummer", volgnummer).addParam("van", van).addParam("naar", naar).addParam("reden", reden)
                .execute();
    }

    private static Locked locked(DbRow row) {
        return new Locked(DbTypes.uuid(row, "id"), DbTypes.uuid(row, "dv_id"),
                NotificatieStatus.of(DbTypes.text(row, "status")), DbTypes.integer(row, "versie"),
                Reden.ofNullable(DbTypes.text(row, "laatste_reden")), DbTypes.instant(row, "geldig_tot"),
                DbTypes.text(row, "berichttype"), DbTypes.text(row, "regie"), DbTypes.text(row, "trace_id"),
                DbTypes.text(row, "aanname_span_id"));
    }
}
