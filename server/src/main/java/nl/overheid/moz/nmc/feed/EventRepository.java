package nl.overheid.moz.nmc.feed;

import java.sql.Connection;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import nl.overheid.moz.nmc.db.Sql;
import nl.overheid.moz.nmc.lifecycle.NotificatieStatus;
import nl.overheid.moz.nmc.lifecycle.Reden;

/**
 * Reads of the event log for the feed and acknowledgements. Writes happen only in {@code Transitions}.
 */
public final class EventRepository {

    /*
     * Ordered by commit position (transactie_id, id) and only below the visibility watermark (the oldest
     * transaction still running), so an event whose transaction commits late is never skipped. The plain
     * transactie_id >= :xid conjunct lets the planner prune partitions (the row comparison alone does not).
     */
    private static final String EVENT_READ_AFTER = """
            SELECT e.id, e.transactie_id::text AS transactie_id, e.tijdstip, e.notificatie, e.volgnummer,
                   e.van, e.naar, e.reden
              FROM event e
             WHERE e.dv_id = :dvId
               AND e.transactie_id >= :xid::xid8
               AND (e.transactie_id, e.id) > (:xid::xid8, :eventId)
               AND e.transactie_id < pg_snapshot_xmin(pg_current_snapshot())
             ORDER BY e.transactie_id, e.id
             LIMIT :limit
            """;

    private static final String EVENT_AT = """
            SELECT e.tijdstip FROM event e
             WHERE e.dv_id = :dvId AND e.transactie_id = :xid::xid8 AND e.id = :eventId
            """;

    private static final String CLUSTER_EPOCH = "SELECT epoch FROM cluster_epoch";

    private static final String ACKNOWLEDGEMENT_UPSERT = """
            INSERT INTO bevestiging (dv_id, cursor, cluster_epoch, transactie_id, event_id, tijdstip)
            VALUES (:dvId, :cursor, :epoch, :xid::xid8, :eventId, :now)
            ON CONFLICT (dv_id) DO UPDATE SET cursor = excluded.cursor, cluster_epoch = excluded.cluster_epoch,
                   transactie_id = excluded.transactie_id, event_id = excluded.event_id, tijdstip = excluded.tijdstip
            """;

    /** One event as the feed shows it. */
    public record Event(long id, String transactieId, Instant tijdstip, UUID notificatie, int volgnummer,
                        NotificatieStatus van, NotificatieStatus naar, Reden reden) {
    }

    public List<Event> eventReadAfter(Connection connection, UUID dvId, Cursor after, int limit) {
        return Sql.on(connection, EVENT_READ_AFTER).bind("dvId", dvId).bind("xid", after.transactieId())
                .bind("eventId", after.eventId()).bind("limit", limit)
                .list(row -> new Event(row.longValue("id"), row.string("transactie_id"), row.instant("tijdstip"),
                        row.uuid("notificatie"), row.integer("volgnummer"),
                        row.string("van") == null ? null : NotificatieStatus.of(row.string("van")),
                        NotificatieStatus.of(row.string("naar")), Reden.ofNullable(row.string("reden"))));
    }

    /** When the event a cursor points at was logged; empty when it no longer exists (or never did). */
    public Optional<Instant> eventTime(Connection connection, UUID dvId, Cursor cursor) {
        return Sql.on(connection, EVENT_AT).bind("dvId", dvId).bind("xid", cursor.transactieId())
                .bind("eventId", cursor.eventId()).optional(row -> row.instant("tijdstip"));
    }

    public int clusterEpoch(Connection connection) {
        return Sql.on(connection, CLUSTER_EPOCH).one(row -> row.integer("epoch"));
    }

    public void acknowledgementUpsert(Connection connection, UUID dvId, Cursor cursor, Instant now) {
        Sql.on(connection, ACKNOWLEDGEMENT_UPSERT).bind("dvId", dvId).bind("cursor", cursor.encode())
                .bind("epoch", cursor.epoch()).bind("xid", cursor.transactieId()).bind("eventId", cursor.eventId())
                .bind("now", now).update();
    }
}
