package nl.overheid.moz.nmc.lifecycle;

import io.helidon.dbclient.DbRow;
import io.helidon.dbclient.DbTransaction;
import java.time.Clock;
import java.time.Instant;
import java.util.Objects;
import java.util.List;
import java.util.stream.Collectors;
import java.util.function.Function;
import java.util.Set;
import java.util.ArrayList;
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

    /*
     * Acceptance of any number of notifications of one DV in one statement: the rows come in as arrays, the
     * unique idempotency index drops a repeat, and each new row gets its first event (volgnummer 1) in the
     * same statement. Timestamps and small integers travel as text arrays (the driver binds those for sure).
     */
    private static final Statement NOTIFICATIE_INSERT_ALL = Statement.named("notificatieInsertAll", """
            WITH input AS (
                SELECT * FROM unnest(CAST(:ids AS uuid[]), CAST(:dvrefHmacs AS bytea[]),
                                     CAST(:pepperVersies AS int[]), CAST(:payloadHmacs AS bytea[]),
                                     CAST(:payloadPepperVersies AS int[]), CAST(:batchIds AS text[]),
                                     CAST(:berichttypen AS text[]), CAST(:geldigTots AS timestamptz[]),
                                     CAST(:ontvangers AS bytea[]), CAST(:personalisaties AS bytea[]),
                                     CAST(:datasleutels AS bytea[]), CAST(:kekVersies AS int[]),
                                     CAST(:traceIds AS text[]), CAST(:aannameSpanIds AS text[]),
                                     CAST(:ldvBetrokkenen AS text[]), CAST(:ldvBetrokkeneTypes AS text[]),
                                     CAST(:ldvPepperVersies AS int[]))
                       AS i(id, dvref_hmac, pepper_versie, payload_hmac, payload_pepper_versie, batch_id,
                            berichttype, geldig_tot, ontvanger, personalisatie, datasleutel, kek_versie, trace_id,
                            aanname_span_id, ldv_betrokkene, ldv_betrokkene_type, ldv_pepper_versie)
            ), inserted AS (
                INSERT INTO notificatie (id, dv_id, dvref_hmac, pepper_versie, payload_hmac, payload_pepper_versie,
                                         batch_id, berichttype, regie, status, versie, geldig_tot,
                                         ontvanger_versleuteld, personalisatie_versleuteld, datasleutel_gewrapt,
                                         kek_versie, trace_id, aanname_span_id, ldv_betrokkene, ldv_betrokkene_type,
                                         ldv_pepper_versie, aangenomen_op)
                SELECT i.id, :dvId, i.dvref_hmac, i.pepper_versie, i.payload_hmac, i.payload_pepper_versie,
                       i.batch_id, i.berichttype, :regie, 'aangenomen', 1, i.geldig_tot, i.ontvanger,
                       i.personalisatie, i.datasleutel, i.kek_versie, i.trace_id, i.aanname_span_id,
                       i.ldv_betrokkene, i.ldv_betrokkene_type, i.ldv_pepper_versie, :aangenomenOp
                  FROM input i
                ON CONFLICT (dv_id, dvref_hmac, payload_hmac) DO NOTHING
                RETURNING id
            ), events AS (
                INSERT INTO event (tijdstip, dv_id, notificatie, volgnummer, van, naar, reden)
                SELECT :aangenomenOp, :dvId, id, 1, NULL, 'aangenomen', NULL FROM inserted
            )
            SELECT id FROM inserted
            """);

    /*
     * Earlier acceptances among candidate HMACs (every pepper version of every request in a chunk); the caller
     * pairs them up, since a row may match one request's dvRef and another's payload.
     */
    private static final Statement NOTIFICATIE_BY_IDEMPOTENCY_KEYS = Statement.named("notificatieByIdempotencyKeys", """
            SELECT %s, dvref_hmac, payload_hmac FROM notificatie
             WHERE dv_id = :dvId AND dvref_hmac = ANY (CAST(:dvrefHmacs AS bytea[]))
               AND payload_hmac = ANY (CAST(:payloadHmacs AS bytea[]))
            """.formatted(LOCKED_COLUMNS));

    private final Clock clock;

    public Transitions(Clock clock) {
        this.clock = Objects.requireNonNull(clock);
    }

    /** A notification as locked in the current transaction. */
    public record Locked(UUID id, UUID dvId, NotificatieStatus status, int version, Reden reden, Instant validUntil,
                         String berichttype, String regime, String traceId, String acceptanceSpanId) {

        /** Whether the DV gave an identifying number (centralised) rather than an e-mail address. */
        public boolean centraal() {
            return "centraal".equals(regime);
        }

        /** Whether {@code geldig_tot} has passed at {@code now}: no attempt may start any more. */
        public boolean expiredAt(Instant now) {
            return validUntil != null && !now.isBefore(validUntil);
        }
    }

    /** What acceptance produced: the new notification, or the existing one for a repeated request. */
    public record AcceptResult(Locked notificatie, boolean created) {
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
    public Locked apply(DbTransaction tx, Locked current, NotificatieStatus to, Reden reden) {
        if (!AllowedTransitions.allowed(current.status(), to)) {
            throw new TransitionRefused(current.status(), to);
        }
        long updated = NOTIFICATIE_SET_STATUS.dml(tx)
                .addParam("naar", to).addParam("reden", reden)
                // Erasure and retention count from the last time the notification became terminal.
                .addParam("terminaalSinds", to.terminal() ? clock.instant() : null)
                .addParam("id", current.id()).addParam("versie", current.version())
                .execute();
        if (updated != 1) {
            throw new IllegalStateException("notification " + current.id() + " changed under its row lock");
        }
        int volgnummer = current.version() + 1;
        insertEvent(tx, current.dvId(), current.id(), volgnummer, current.status(), to, reden);
        return new Locked(current.id(), current.dvId(), to, volgnummer, reden, current.validUntil(),
                current.berichttype(), current.regime(), current.traceId(), current.acceptanceSpanId());
    }

    /**
     * The first transition, (none) → aangenomen, for notifications of one DV and regime: inserts each
     * notification and its event with volgnummer 1 in one statement. A repeat of an earlier request (same
     * DV, dvRef HMAC and payload HMAC, also within {@code all}) inserts nothing and yields the existing
     * notification. Results are in the order of {@code all}.
     *
     * <p>Concurrency: two identical requests at once serialise on the unique index; the loser sees the
     * winner's row.
     */
    public List<AcceptResult> acceptAll(DbTransaction tx, List<NewNotificatie> all) {
        if (all.isEmpty()) {
            return List.of();
        }
        NewNotificatie first = all.getFirst();
        if (all.stream().anyMatch(n -> !n.dvId().equals(first.dvId()) || !n.regime().equals(first.regime()))) {
            throw new IllegalArgumentException("one acceptance statement takes notifications of one DV and regime");
        }
        Set<UUID> created = NOTIFICATIE_INSERT_ALL.query(tx)
                .addParam("dvId", first.dvId()).addParam("regie", first.regime())
                .addParam("aangenomenOp", clock.instant())
                .addParam("ids", all.stream().map(NewNotificatie::id).toArray(UUID[]::new))
                .addParam("dvrefHmacs", all.stream().map(NewNotificatie::dvrefHmac).toArray(byte[][]::new))
                .addParam("pepperVersies", texts(all, n -> n.pepperVersion()))
                .addParam("payloadHmacs", all.stream().map(NewNotificatie::payloadHmac).toArray(byte[][]::new))
                .addParam("payloadPepperVersies", texts(all, n -> n.payloadPepperVersion()))
                .addParam("batchIds", texts(all, NewNotificatie::batchId))
                .addParam("berichttypen", texts(all, NewNotificatie::berichttype))
                .addParam("geldigTots", texts(all, NewNotificatie::validUntil))
                .addParam("ontvangers", all.stream().map(NewNotificatie::recipientEncrypted).toArray(byte[][]::new))
                .addParam("personalisaties",
                        all.stream().map(NewNotificatie::personalisationEncrypted).toArray(byte[][]::new))
                .addParam("datasleutels", all.stream().map(NewNotificatie::wrappedDataKey).toArray(byte[][]::new))
                .addParam("kekVersies", texts(all, n -> n.kekVersion()))
                .addParam("traceIds", texts(all, NewNotificatie::traceId))
                .addParam("aannameSpanIds", texts(all, NewNotificatie::acceptanceSpanId))
                .addParam("ldvBetrokkenen", texts(all, NewNotificatie::ldvDataSubject))
                .addParam("ldvBetrokkeneTypes", texts(all, NewNotificatie::ldvDataSubjectType))
                .addParam("ldvPepperVersies", texts(all, NewNotificatie::ldvPepperVersion))
                .execute().map(row -> DbTypes.uuid(row, "id")).collect(Collectors.toSet());
        List<AcceptResult> results = new ArrayList<>(all.size());
        for (NewNotificatie n : all) {
            if (created.contains(n.id())) {
                results.add(new AcceptResult(new Locked(n.id(), n.dvId(), NotificatieStatus.AANGENOMEN, 1, null,
                        n.validUntil(), n.berichttype(), n.regime(), n.traceId(), n.acceptanceSpanId()), true));
            } else {
                results.add(new AcceptResult(findAccepted(tx, n.dvId(), List.of(n.dvrefHmac()),
                        List.of(n.payloadHmac())).orElseThrow(), false));
            }
        }
        return results;
    }

    /** {@link #acceptAll} of one notification. */
    public AcceptResult accept(DbTransaction tx, NewNotificatie n) {
        return acceptAll(tx, List.of(n)).getFirst();
    }

    private static String[] texts(List<NewNotificatie> all, Function<NewNotificatie, Object> field) {
        return all.stream().map(field).map(value -> value == null ? null : value.toString()).toArray(String[]::new);
    }

    /** An accepted notification with the idempotency key it was stored under. */
    public record Repeatable(Locked notificatie, byte[] dvrefHmac, byte[] payloadHmac) {
    }

    /** The notification an identical request created, under any of the given HMACs (one per pepper version). */
    public Optional<Locked> findAccepted(DbTransaction tx, UUID dvId, List<byte[]> dvrefHmacs, List<byte[]> payloadHmacs) {
        return findAcceptedAll(tx, dvId, dvrefHmacs, payloadHmacs).stream().findFirst().map(Repeatable::notificatie);
    }

    /** The DV's notifications stored under any pair of the given HMACs. */
    public List<Repeatable> findAcceptedAll(DbTransaction tx, UUID dvId, List<byte[]> dvrefHmacs,
                                            List<byte[]> payloadHmacs) {
        return NOTIFICATIE_BY_IDEMPOTENCY_KEYS.query(tx).addParam("dvId", dvId)
                .addParam("dvrefHmacs", dvrefHmacs.toArray(byte[][]::new))
                .addParam("payloadHmacs", payloadHmacs.toArray(byte[][]::new)).execute()
                .map(row -> new Repeatable(locked(row), row.column("dvref_hmac").get(byte[].class),
                        row.column("payload_hmac").get(byte[].class))).toList();
    }

    private void insertEvent(DbTransaction tx, UUID dvId, UUID notificatie, int volgnummer,
                             NotificatieStatus from, NotificatieStatus to, Reden reden) {
        EVENT_INSERT.dml(tx)
                .addParam("tijdstip", clock.instant()).addParam("dvId", dvId).addParam("notificatie", notificatie)
                .addParam("volgnummer", volgnummer).addParam("van", from).addParam("naar", to).addParam("reden", reden)
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
