package nl.overheid.moz.nmc.lifecycle;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import nl.overheid.moz.nmc.db.Sql;

/**
 * All SQL of {@code poging}. Callers hold the notification's row lock before writing an attempt.
 */
public final class PogingRepository {

    private static final String COLUMNS = """
            id, notificatie, nummer, status, notify_id, duplicaat_notify_ids, verzonden_op, verzoek_gedaan_op,
            ontvangst_completed_at
            """;

    private static final String POGING_INSERT = """
            INSERT INTO poging (notificatie, nummer, status, aangemaakt_op)
            VALUES (:notificatie, :nummer, 'gepland', :now)
            RETURNING %s
            """.formatted(COLUMNS);

    private static final String POGING_LATEST = """
            SELECT %s FROM poging WHERE notificatie = :notificatie ORDER BY nummer DESC LIMIT 1
            """.formatted(COLUMNS);

    private static final String POGING_ALL = """
            SELECT %s FROM poging WHERE notificatie = :notificatie ORDER BY nummer
            """.formatted(COLUMNS);

    private static final String POGING_BY_ID = """
            SELECT %s FROM poging WHERE id = :id
            """.formatted(COLUMNS);

    private static final String POGING_LOCK = """
            SELECT %s FROM poging WHERE id = :id FOR UPDATE
            """.formatted(COLUMNS);

    private static final String POGING_MARK_SENT = """
            UPDATE poging SET status = 'verzonden', notify_id = :notifyId, verzonden_op = :now
             WHERE id = :id AND status = 'gepland'
            """;

    private static final String POGING_MARK_REQUESTED = """
            UPDATE poging SET verzoek_gedaan_op = coalesce(verzoek_gedaan_op, :now) WHERE id = :id
            """;

    private static final String POGING_ADD_DUPLICATE = """
            UPDATE poging SET duplicaat_notify_ids = array_append(duplicaat_notify_ids, :notifyId)
             WHERE id = :id AND notify_id IS DISTINCT FROM :notifyId AND NOT (:notifyId = ANY (duplicaat_notify_ids))
            """;

    private static final String POGING_APPLY_OUTCOME = """
            UPDATE poging SET status = :status, ontvangst_completed_at = :completedAt WHERE id = :id
            """;

    private static final String POGING_SET_STATUS = """
            UPDATE poging SET status = :status WHERE id = :id
            """;

    private final Clock clock;

    public PogingRepository(Clock clock) {
        this.clock = clock;
    }

    /** Creates attempt {@code nummer} ({@code gepland}). The unique (notificatie, nummer) refuses a second one. */
    public Poging pogingInsert(Connection connection, UUID notificatie, int nummer) {
        return Sql.on(connection, POGING_INSERT).bind("notificatie", notificatie).bind("nummer", nummer)
                .bind("now", clock.instant()).one(PogingRepository::poging);
    }

    public Optional<Poging> pogingLatest(Connection connection, UUID notificatie) {
        return Sql.on(connection, POGING_LATEST).bind("notificatie", notificatie).optional(PogingRepository::poging);
    }

    public List<Poging> pogingAll(Connection connection, UUID notificatie) {
        return Sql.on(connection, POGING_ALL).bind("notificatie", notificatie).list(PogingRepository::poging);
    }

    public Optional<Poging> pogingById(Connection connection, UUID id) {
        return Sql.on(connection, POGING_BY_ID).bind("id", id).optional(PogingRepository::poging);
    }

    /** Locks the attempt row; the caller already holds its notification's lock. */
    public Optional<Poging> pogingLock(Connection connection, UUID id) {
        return Sql.on(connection, POGING_LOCK).bind("id", id).optional(PogingRepository::poging);
    }

    /** gepland → verzonden with NotifyNL's id. {@code false} when the attempt was no longer gepland. */
    public boolean pogingMarkSent(Connection connection, UUID id, UUID notifyId) {
        return Sql.on(connection, POGING_MARK_SENT).bind("id", id).bind("notifyId", notifyId)
                .bind("now", clock.instant()).update() == 1;
    }

    /** Records that a POST for this attempt is about to be made (kept from the first one on). */
    public void pogingMarkRequested(Connection connection, UUID id) {
        Sql.on(connection, POGING_MARK_REQUESTED).bind("id", id).bind("now", clock.instant()).update();
    }

    /** Records another NotifyNL id for the same attempt (a second send after an expired lease). */
    public void pogingAddDuplicate(Connection connection, UUID id, UUID notifyId) {
        Sql.on(connection, POGING_ADD_DUPLICATE).bind("id", id).bind("notifyId", notifyId).update();
    }

    /** Applies a receipt's outcome: the new status and the receipt's completed_at. */
    public void pogingApplyOutcome(Connection connection, UUID id, PogingStatus status, Instant completedAt) {
        Sql.on(connection, POGING_APPLY_OUTCOME).bind("id", id).bind("status", status)
                .bind("completedAt", completedAt).update();
    }

    public void pogingSetStatus(Connection connection, UUID id, PogingStatus status) {
        Sql.on(connection, POGING_SET_STATUS).bind("id", id).bind("status", status).update();
    }

    static Poging poging(Sql.Row row) throws SQLException {
        return new Poging(row.uuid("id"), row.uuid("notificatie"), row.integer("nummer"),
                PogingStatus.of(row.string("status")), row.uuid("notify_id"),
                Arrays.asList(row.uuids("duplicaat_notify_ids")), row.instant("verzonden_op"),
                row.instant("verzoek_gedaan_op"), row.instant("ontvangst_completed_at"));
    }
}
