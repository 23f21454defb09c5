package nl.overheid.moz.nmc.lifecycle;

import io.helidon.dbclient.DbRow;
import io.helidon.dbclient.DbTransaction;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import nl.overheid.moz.nmc.db.DbTypes;
import nl.overheid.moz.nmc.db.Statement;

/**
 * All SQL of {@code poging}. Callers hold the notification's row lock before writing an attempt.
 */
public final class PogingRepository {

    private static final String COLUMNS = """
            id, notificatie, nummer, status, notify_id, duplicaat_notify_ids, verzonden_op, verzoek_gedaan_op,
            ontvangst_completed_at, bezorgd_op, verzoeken, notify_service
            """;

    private static final Statement POGING_INSERT = Statement.named("pogingInsert", """
            INSERT INTO poging (notificatie, nummer, status, aangemaakt_op)
            VALUES (:notificatie, :nummer, 'gepland', :now)
            RETURNING %s
            """.formatted(COLUMNS));

    private static final Statement POGING_LATEST = Statement.named("pogingLatest", """
            SELECT %s FROM poging WHERE notificatie = :notificatie ORDER BY nummer DESC LIMIT 1
            """.formatted(COLUMNS));

    private static final Statement POGING_ALL = Statement.named("pogingAll", """
            SELECT %s FROM poging WHERE notificatie = :notificatie ORDER BY nummer
            """.formatted(COLUMNS));

    private static final Statement POGING_BY_ID = Statement.named("pogingById", """
            SELECT %s FROM poging WHERE id = :id
            """.formatted(COLUMNS));

    private static final Statement POGING_LOCK = Statement.named("pogingLock", """
            SELECT %s FROM poging WHERE id = :id FOR NO KEY UPDATE
            """.formatted(COLUMNS));

    private static final Statement POGING_MARK_SENT = Statement.named("pogingMarkSent", """
            UPDATE poging SET status = 'verzonden', notify_id = :notifyId, verzonden_op = :now
             WHERE id = :id AND status = 'gepland'
            """);

    private static final Statement POGING_MARK_REQUESTED = Statement.named("pogingMarkRequested", """
            UPDATE poging SET verzoek_gedaan_op = coalesce(verzoek_gedaan_op, :now), verzoeken = verzoeken + 1,
                   notify_service = :service
             WHERE id = :id
            """);

    private static final Statement POGING_CLEAR_REQUESTED = Statement.named("pogingClearRequested", """
            UPDATE poging SET verzoek_gedaan_op = NULL WHERE id = :id AND status = 'gepland'
            """);

    private static final Statement POGING_ADD_DUPLICATE = Statement.named("pogingAddDuplicate", """
            UPDATE poging SET duplicaat_notify_ids = array_append(duplicaat_notify_ids, CAST(:notifyId AS uuid))
             WHERE id = :id AND notify_id IS DISTINCT FROM CAST(:notifyId AS uuid)
               AND NOT (CAST(:notifyId AS uuid) = ANY (duplicaat_notify_ids))
            """);

    private static final Statement POGING_APPLY_OUTCOME = Statement.named("pogingApplyOutcome", """
            UPDATE poging SET status = :status, ontvangst_completed_at = :completedAt WHERE id = :id
            """);

    /* The proof rests on one attempt at a time: this one gets it, the notification's other attempt loses it. */
    private static final Statement POGING_MARK_DELIVERY_PROOF = Statement.named("pogingMarkDeliveryProof", """
            UPDATE poging SET bezorgd_op = CASE WHEN id = :id THEN CAST(:at AS timestamptz) END
             WHERE notificatie = :notificatie
            """);

    private static final Statement POGING_CLEAR_DELIVERY_PROOF = Statement.named("pogingClearDeliveryProof", """
            UPDATE poging SET bezorgd_op = NULL WHERE id = :id
            """);

    /* Once per attempt: only the first permanent-failure of the attempt plans its report. */
    private static final Statement POGING_MARK_INVALID_REPORTED = Statement.named("pogingMarkInvalidReported", """
            UPDATE poging SET ongeldig_gemeld_op = :now WHERE id = :id AND ongeldig_gemeld_op IS NULL
            """);

    private static final Statement POGING_SET_STATUS = Statement.named("pogingSetStatus", """
            UPDATE poging SET status = :status WHERE id = :id
            """);

    private static final Statement POGING_SET_CONTACTGEGEVEN = Statement.named("pogingSetContactgegeven", """
            UPDATE poging SET contactgegeven_versleuteld = :sealed WHERE id = :id
            """);

    private static final Statement POGING_CONTACTGEGEVEN = Statement.named("pogingContactgegeven", """
            SELECT contactgegeven_versleuteld FROM poging WHERE id = :id
            """);

    private final Clock clock;

    public PogingRepository(Clock clock) {
        this.clock = clock;
    }

    /** Creates attempt {@code nummer} ({@code gepland}). The unique (notificatie, nummer) refuses a second one. */
    public Poging insert(DbTransaction tx, UUID notificatie, int number) {
        return POGING_INSERT
                .get(tx)
                .addParam("notificatie", notificatie)
                .addParam("nummer", number)
                .addParam("now", clock.instant())
                .execute()
                .map(PogingRepository::poging)
                .orElseThrow();
    }

    public Optional<Poging> latest(DbTransaction tx, UUID notificatie) {
        return POGING_LATEST
                .get(tx)
                .addParam("notificatie", notificatie)
                .execute()
                .map(PogingRepository::poging);
    }

    public List<Poging> all(DbTransaction tx, UUID notificatie) {
        return POGING_ALL
                .query(tx)
                .addParam("notificatie", notificatie)
                .execute()
                .map(PogingRepository::poging)
                .toList();
    }

    public Optional<Poging> byId(DbTransaction tx, UUID id) {
        return POGING_BY_ID.get(tx).addParam("id", id).execute().map(PogingRepository::poging);
    }

    /**
     * Locks the attempt row ({@code FOR NO KEY UPDATE}: stored receipts and tasks reference it); the caller
     * already holds its notification's lock.
     */
    public Optional<Poging> lock(DbTransaction tx, UUID id) {
        return POGING_LOCK.get(tx).addParam("id", id).execute().map(PogingRepository::poging);
    }

    /** gepland → verzonden with NotifyNL's id. {@code false} when the attempt was no longer gepland. */
    public boolean markSent(DbTransaction tx, UUID id, UUID notifyId) {
        return POGING_MARK_SENT
                        .dml(tx)
                        .addParam("id", id)
                        .addParam("notifyId", notifyId)
                        .addParam("now", clock.instant())
                        .execute()
                == 1;
    }

    /** Records that a POST for this attempt is about to be made: the first one's time, and one more request. */
    public void markRequested(DbTransaction tx, UUID id, String notifyService) {
        POGING_MARK_REQUESTED
                .dml(tx)
                .addParam("id", id)
                .addParam("service", notifyService)
                .addParam("now", clock.instant())
                .execute();
    }

    /**
     * Records that NotifyNL certainly does not have the planned attempt: the POST just made was refused outright, and
     * an earlier one was looked up by reference before it. The next claim then sends without looking up first.
     */
    public void clearRequested(DbTransaction tx, UUID id) {
        POGING_CLEAR_REQUESTED.dml(tx).addParam("id", id).execute();
    }

    /** Records another NotifyNL id for the same attempt (a second send after an expired lease); {@code true}: new. */
    public boolean addDuplicate(DbTransaction tx, UUID id, UUID notifyId) {
        return POGING_ADD_DUPLICATE
                        .dml(tx)
                        .addParam("id", id)
                        .addParam("notifyId", notifyId)
                        .execute()
                == 1;
    }

    /**
     * The notification's bezorgd now rests on attempt {@code id}, whose delivery at {@code at} is the proof; any
     * other attempt of the notification loses it.
     */
    public void markDeliveryProof(DbTransaction tx, UUID notificatie, UUID id, Instant at) {
        POGING_MARK_DELIVERY_PROOF
                .dml(tx)
                .addParam("notificatie", notificatie)
                .addParam("id", id)
                .addParam("at", at)
                .execute();
    }

    /**
     * Marks that the address this attempt went to is being reported invalid; {@code true} the first time only, so
     * an attempt's address is reported once however many permanent-failures arrive for it.
     */
    public boolean markInvalidReported(DbTransaction tx, UUID id, Instant now) {
        return POGING_MARK_INVALID_REPORTED
                        .dml(tx)
                        .addParam("id", id)
                        .addParam("now", now)
                        .execute()
                == 1;
    }

    /** The attempt's delivery proof is undone (a failure within the MEBV period on it). */
    public void clearDeliveryProof(DbTransaction tx, UUID id) {
        POGING_CLEAR_DELIVERY_PROOF.dml(tx).addParam("id", id).execute();
    }

    /** Records a receipt's outcome on the attempt: the new status and the receipt's completed_at. */
    public void applyOutcome(DbTransaction tx, UUID id, PogingStatus status, Instant completedAt) {
        POGING_APPLY_OUTCOME
                .dml(tx)
                .addParam("id", id)
                .addParam("status", status)
                .addParam("completedAt", completedAt)
                .execute();
    }

    public void setStatus(DbTransaction tx, UUID id, PogingStatus status) {
        POGING_SET_STATUS.dml(tx).addParam("id", id).addParam("status", status).execute();
    }

    /**
     * Keeps the Profielservice's id of the address the attempt goes to, sealed under the notification's data key
     * (centralised regime, for the invalid-address report).
     */
    public void setContactgegeven(DbTransaction tx, UUID id, byte[] sealed) {
        POGING_SET_CONTACTGEGEVEN
                .dml(tx)
                .addParam("id", id)
                .addParam("sealed", sealed)
                .execute();
    }

    /** The sealed contactgegeven id of the attempt, if it has one. */
    public Optional<byte[]> contactgegeven(DbTransaction tx, UUID id) {
        return POGING_CONTACTGEGEVEN
                .get(tx)
                .addParam("id", id)
                .execute()
                .flatMap(row -> Optional.ofNullable(
                        row.column("contactgegeven_versleuteld").get(byte[].class)));
    }

    static Poging poging(DbRow row) {
        return new Poging(
                DbTypes.uuid(row, "id"),
                DbTypes.uuid(row, "notificatie"),
                DbTypes.integer(row, "nummer"),
                PogingStatus.of(DbTypes.text(row, "status")),
                DbTypes.uuid(row, "notify_id"),
                DbTypes.uuids(row, "duplicaat_notify_ids"),
                DbTypes.instant(row, "verzonden_op"),
                DbTypes.instant(row, "verzoek_gedaan_op"),
                DbTypes.instant(row, "ontvangst_completed_at"),
                DbTypes.instant(row, "bezorgd_op"),
                DbTypes.integer(row, "verzoeken"),
                DbTypes.text(row, "notify_service"));
    }
}
