package nl.overheid.moz.nmc.lifecycle;

import io.helidon.dbclient.DbRow;
import io.helidon.dbclient.DbTransaction;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;
import nl.overheid.moz.nmc.db.DbTypes;
import nl.overheid.moz.nmc.db.Statement;

/**
 * The SQL of the notification aggregate: {@code notificatie} with the {@code event} written with each of its
 * transitions. The reads: the DV's status view (always scoped to the caller's DV, so another DV's notification
 * does not exist) and the sealed data the send task needs. The writes (lock, status, event, acceptance) are
 * called only by {@link Transitions}, which holds the rules: lock order, allowed pairs, {@code versie} + 1.
 */
public final class NotificatieRepository {

    /**
     * The condition under which a query reads one DV's events through the feed's index: the index is keyed on
     * {@code uuid_hash(dv_id)} (V26: a 4-byte key keeps its pages full), so a query names that key beside
     * {@code dv_id} itself, which two DVs' hashes could share. {@code event} is the query's alias of the log,
     * {@code dvId} an SQL expression of type uuid.
     */
    public static String eventsOfDv(String event, String dvId) {
        return "%1$s.dv_id = %2$s AND uuid_hash(%1$s.dv_id) = uuid_hash(%2$s)".formatted(event, dvId);
    }

    private static final String LOCKED_COLUMNS =
            "id, dv_id, status, versie, laatste_reden, geldig_tot, berichttype, regie, trace_id, aanname_span_id";

    private static final Statement NOTIFICATIE_LOCK = Statement.named("notificatieLock", """
            SELECT %s FROM notificatie WHERE id = :id FOR NO KEY UPDATE
            """.formatted(LOCKED_COLUMNS));

    private static final Statement NOTIFICATIE_LOCK_OF_DV =
            Statement.named("notificatieLockOfDv", """
            SELECT %s FROM notificatie WHERE id = :id AND dv_id = :dvId FOR NO KEY UPDATE
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
    private static final Statement NOTIFICATIE_BY_IDEMPOTENCY_KEYS =
            Statement.named("notificatieByIdempotencyKeys", """
            SELECT %s, dvref_hmac, payload_hmac FROM notificatie
             WHERE dv_id = :dvId AND dvref_hmac = ANY (CAST(:dvrefHmacs AS bytea[]))
               AND payload_hmac = ANY (CAST(:payloadHmacs AS bytea[]))
            """.formatted(LOCKED_COLUMNS));

    private static final String VIEW_COLUMNS = """
            n.id, n.status, n.versie, n.laatste_reden, n.berichttype, n.regie, n.batch_id, n.geldig_tot,
            n.aangenomen_op, n.terminaal_sinds AS definitief_op
            """;

    private static final Statement NOTIFICATIE_VIEW = Statement.named("notificatieView", """
            SELECT %s FROM notificatie n WHERE n.id = :id AND n.dv_id = :dvId
            """.formatted(VIEW_COLUMNS));

    private static final Statement NOTIFICATIE_BY_DVREF =
            Statement.named("notificatieByDvRef", """
            SELECT %s FROM notificatie n
             WHERE n.dv_id = :dvId AND n.dvref_hmac = ANY (CAST(:hmacs AS bytea[]))
             ORDER BY n.aangenomen_op DESC, n.id DESC
             LIMIT :limit
            """.formatted(VIEW_COLUMNS));

    private static final Statement NOTIFICATIE_FOR_SENDING = Statement.named("notificatieForSending", """
            SELECT n.id, n.dv_id, n.berichttype, n.regie, n.geldig_tot, n.ontvanger_versleuteld,
                   n.personalisatie_versleuteld, n.datasleutel_gewrapt, n.kek_versie,
                   d.oin, coalesce(d.profiel_naam, d.naam) AS profiel_dienstverlener
              FROM notificatie n JOIN dienstverlener d ON d.id = n.dv_id WHERE n.id = :id
            """);

    private static final Statement NOTIFICATIE_PROCESSING_CONTEXT =
            Statement.named("notificatieProcessingContext", """
            SELECT n.id, n.regie, n.trace_id, n.aanname_span_id, n.ldv_betrokkene, n.ldv_betrokkene_type,
                   b.verwerkingsactiviteit
              FROM notificatie n JOIN berichttype b ON b.code = n.berichttype
             WHERE n.id = :id
            """);

    private static final Statement NOTIFICATIE_PROCESSING_CONTEXTS =
            Statement.named("notificatieProcessingContexts", """
            SELECT n.id, n.regie, n.trace_id, n.aanname_span_id, n.ldv_betrokkene, n.ldv_betrokkene_type,
                   b.verwerkingsactiviteit
              FROM notificatie n JOIN berichttype b ON b.code = n.berichttype
             WHERE n.id = ANY (CAST(:ids AS uuid[]))
            """);

    /** The status view of one notification. */
    public record View(
            UUID id,
            NotificatieStatus status,
            int version,
            Reden reden,
            String berichttype,
            String regime,
            String batchId,
            Instant validUntil,
            Instant acceptedAt,
            Instant definitiefOp) {}

    /**
     * What the send task needs: the encrypted recipient and personalisation with the wrapped data key
     * ({@code null} once erased), geldig_tot (fixed at acceptance, so it needs no lock to read), and the DV's name
     * at the Profielservice (centralised regime).
     */
    public record ForSending(
            UUID id,
            UUID dvId,
            String berichttype,
            String regime,
            Instant validUntil,
            byte[] recipient,
            byte[] personalisation,
            byte[] wrappedDataKey,
            int kekVersion,
            String oin,
            String profielDienstverlenerNaam) {

        /** Whether {@code geldig_tot} has passed at {@code now} ({@link Transitions#expired}). */
        public boolean expiredAt(Instant now) {
            return Transitions.expired(validUntil, now);
        }
    }

    /**
     * What every LDV record about the notification names: its trace and the acceptance's span, the
     * berichttype's processing activity and the pseudonymised data subject. Nothing here needs decrypting.
     */
    public record ProcessingContext(
            UUID id,
            String regime,
            String traceId,
            String acceptanceSpanId,
            String processingActivity,
            String dataSubject,
            String dataSubjectType) {}

    public Optional<View> view(DbTransaction tx, UUID dvId, UUID id) {
        return NOTIFICATIE_VIEW
                .get(tx)
                .addParam("id", id)
                .addParam("dvId", dvId)
                .execute()
                .map(NotificatieRepository::viewOf);
    }

    public List<View> byDvRef(DbTransaction tx, UUID dvId, List<byte[]> hmacs, int limit) {
        return NOTIFICATIE_BY_DVREF
                .query(tx)
                .addParam("dvId", dvId)
                .addParam("hmacs", hmacs.toArray(new byte[0][]))
                .addParam("limit", limit)
                .execute()
                .map(NotificatieRepository::viewOf)
                .toList();
    }

    public Optional<ForSending> forSending(DbTransaction tx, UUID id) {
        return NOTIFICATIE_FOR_SENDING
                .get(tx)
                .addParam("id", id)
                .execute()
                .map(row -> new ForSending(
                        DbTypes.uuid(row, "id"),
                        DbTypes.uuid(row, "dv_id"),
                        DbTypes.text(row, "berichttype"),
                        DbTypes.text(row, "regie"),
                        DbTypes.instant(row, "geldig_tot"),
                        row.column("ontvanger_versleuteld").get(byte[].class),
                        row.column("personalisatie_versleuteld").get(byte[].class),
                        row.column("datasleutel_gewrapt").get(byte[].class),
                        DbTypes.integer(row, "kek_versie"),
                        DbTypes.text(row, "oin"),
                        DbTypes.text(row, "profiel_dienstverlener")));
    }

    public Optional<ProcessingContext> processingContext(DbTransaction tx, UUID id) {
        return NOTIFICATIE_PROCESSING_CONTEXT
                .get(tx)
                .addParam("id", id)
                .execute()
                .map(NotificatieRepository::processingContext);
    }

    /** The processing contexts of several notifications at once (those that still exist). */
    public List<ProcessingContext> processingContexts(DbTransaction tx, java.util.Collection<UUID> ids) {
        return NOTIFICATIE_PROCESSING_CONTEXTS
                .query(tx)
                .addParam("ids", ids.toArray(UUID[]::new))
                .execute()
                .map(NotificatieRepository::processingContext)
                .toList();
    }

    private static ProcessingContext processingContext(io.helidon.dbclient.DbRow row) {
        return new ProcessingContext(
                DbTypes.uuid(row, "id"),
                DbTypes.text(row, "regie"),
                DbTypes.text(row, "trace_id"),
                DbTypes.text(row, "aanname_span_id"),
                DbTypes.text(row, "verwerkingsactiviteit"),
                DbTypes.text(row, "ldv_betrokkene"),
                DbTypes.text(row, "ldv_betrokkene_type"));
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
    Optional<Transitions.Locked> lock(DbTransaction tx, UUID id) {
        return NOTIFICATIE_LOCK.get(tx).addParam("id", id).execute().map(NotificatieRepository::locked);
    }

    /**
     * Locks the notification only if it is {@code dvId}'s: another DV's notification is never locked (nor waited
     * for), so a caller can neither hold another DV's row nor learn from a wait that it exists.
     */
    Optional<Transitions.Locked> lockOfDv(DbTransaction tx, UUID id, UUID dvId) {
        return NOTIFICATIE_LOCK_OF_DV
                .get(tx)
                .addParam("id", id)
                .addParam("dvId", dvId)
                .execute()
                .map(NotificatieRepository::locked);
    }

    /**
     * Sets the status of the notification at {@code version} and raises its version by one; returns the rows
     * changed (0 when the version moved on).
     */
    long setStatus(DbTransaction tx, UUID id, int version, NotificatieStatus to, Reden reden, Instant terminalSince) {
        return NOTIFICATIE_SET_STATUS
                .dml(tx)
                .addParam("naar", to)
                .addParam("reden", reden)
                .addParam("terminaalSinds", terminalSince)
                .addParam("id", id)
                .addParam("versie", version)
                .execute();
    }

    /** Writes the event of a transition. */
    void insertEvent(
            DbTransaction tx,
            Instant time,
            UUID dvId,
            UUID notificatie,
            int volgnummer,
            NotificatieStatus from,
            NotificatieStatus to,
            Reden reden) {
        EVENT_INSERT
                .dml(tx)
                .addParam("tijdstip", time)
                .addParam("dvId", dvId)
                .addParam("notificatie", notificatie)
                .addParam("volgnummer", volgnummer)
                .addParam("van", from)
                .addParam("naar", to)
                .addParam("reden", reden)
                .execute();
    }

    /**
     * Inserts notifications of one DV and regime, each with its first event, in one statement; returns the ids
     * of those inserted (a repeat of an earlier acceptance is not).
     *
     * <p>Concurrency: two identical requests at once serialise on the unique index; the loser sees the
     * winner's row.
     */
    Set<UUID> insertAll(DbTransaction tx, UUID dvId, String regime, Instant acceptedAt, List<NewNotificatie> all) {
        return NOTIFICATIE_INSERT_ALL
                .query(tx)
                .addParam("dvId", dvId)
                .addParam("regie", regime)
                .addParam("aangenomenOp", acceptedAt)
                .addParam("ids", all.stream().map(NewNotificatie::id).toArray(UUID[]::new))
                .addParam(
                        "dvrefHmacs",
                        all.stream().map(NewNotificatie::dvrefHmac).toArray(byte[][]::new))
                .addParam("pepperVersies", texts(all, n -> n.pepperVersion()))
                .addParam(
                        "payloadHmacs",
                        all.stream().map(NewNotificatie::payloadHmac).toArray(byte[][]::new))
                .addParam("payloadPepperVersies", texts(all, n -> n.payloadPepperVersion()))
                .addParam("batchIds", texts(all, NewNotificatie::batchId))
                .addParam("berichttypen", texts(all, NewNotificatie::berichttype))
                .addParam("geldigTots", texts(all, NewNotificatie::validUntil))
                .addParam(
                        "ontvangers",
                        all.stream().map(NewNotificatie::recipientEncrypted).toArray(byte[][]::new))
                .addParam(
                        "personalisaties",
                        all.stream()
                                .map(NewNotificatie::personalisationEncrypted)
                                .toArray(byte[][]::new))
                .addParam(
                        "datasleutels",
                        all.stream().map(NewNotificatie::wrappedDataKey).toArray(byte[][]::new))
                .addParam("kekVersies", texts(all, n -> n.kekVersion()))
                .addParam("traceIds", texts(all, NewNotificatie::traceId))
                .addParam("aannameSpanIds", texts(all, NewNotificatie::acceptanceSpanId))
                .addParam("ldvBetrokkenen", texts(all, NewNotificatie::ldvDataSubject))
                .addParam("ldvBetrokkeneTypes", texts(all, NewNotificatie::ldvDataSubjectType))
                .addParam("ldvPepperVersies", texts(all, NewNotificatie::ldvPepperVersion))
                .execute()
                .map(row -> DbTypes.uuid(row, "id"))
                .collect(Collectors.toSet());
    }

    private static String[] texts(List<NewNotificatie> all, Function<NewNotificatie, Object> field) {
        return all.stream()
                .map(field)
                .map(value -> value == null ? null : value.toString())
                .toArray(String[]::new);
    }

    /** The DV's notifications stored under any pair of the given HMACs. */
    List<Transitions.Repeatable> byIdempotencyKeys(
            DbTransaction tx, UUID dvId, List<byte[]> dvrefHmacs, List<byte[]> payloadHmacs) {
        return NOTIFICATIE_BY_IDEMPOTENCY_KEYS
                .query(tx)
                .addParam("dvId", dvId)
                .addParam("dvrefHmacs", dvrefHmacs.toArray(byte[][]::new))
                .addParam("payloadHmacs", payloadHmacs.toArray(byte[][]::new))
                .execute()
                .map(row -> new Transitions.Repeatable(
                        locked(row),
                        row.column("dvref_hmac").get(byte[].class),
                        row.column("payload_hmac").get(byte[].class)))
                .toList();
    }

    private static Transitions.Locked locked(DbRow row) {
        return new Transitions.Locked(
                DbTypes.uuid(row, "id"),
                DbTypes.uuid(row, "dv_id"),
                NotificatieStatus.of(DbTypes.text(row, "status")),
                DbTypes.integer(row, "versie"),
                Reden.ofNullable(DbTypes.text(row, "laatste_reden")),
                DbTypes.instant(row, "geldig_tot"),
                DbTypes.text(row, "berichttype"),
                DbTypes.text(row, "regie"),
                DbTypes.text(row, "trace_id"),
                DbTypes.text(row, "aanname_span_id"));
    }

    private static View viewOf(DbRow row) {
        return new View(
                DbTypes.uuid(row, "id"),
                NotificatieStatus.of(DbTypes.text(row, "status")),
                DbTypes.integer(row, "versie"),
                Reden.ofNullable(DbTypes.text(row, "laatste_reden")),
                DbTypes.text(row, "berichttype"),
                DbTypes.text(row, "regie"),
                DbTypes.text(row, "batch_id"),
                DbTypes.instant(row, "geldig_tot"),
                DbTypes.instant(row, "aangenomen_op"),
                DbTypes.instant(row, "definitief_op"));
    }
}
