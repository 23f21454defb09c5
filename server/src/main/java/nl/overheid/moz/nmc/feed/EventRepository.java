package nl.overheid.moz.nmc.feed;

import io.helidon.dbclient.DbTransaction;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import nl.overheid.moz.nmc.db.DbTypes;
import nl.overheid.moz.nmc.db.Statement;
import nl.overheid.moz.nmc.lifecycle.NotificatieRepository;
import nl.overheid.moz.nmc.lifecycle.NotificatieStatus;
import nl.overheid.moz.nmc.lifecycle.Reden;

/**
 * Reads of the event log for the feed, the acknowledgements ({@code bevestiging}), and the unacknowledged terminal
 * statuses with the reports about them ({@code beheermelding}). Events are written only by the transition function.
 */
public final class EventRepository {

    /*
     * Ordered by commit position (transactie_id, id) and only below the visibility watermark (the oldest
     * transaction still running), so an event whose transaction commits late is never skipped. The plain
     * transactie_id >= :xid conjunct lets the planner prune partitions (the row comparison alone does not).
     */
    private static final Statement EVENT_READ_AFTER = Statement.named(
            "eventReadAfter", """
            SELECT e.id, CAST(e.transactie_id AS text) AS transactie_id, e.tijdstip, e.notificatie, e.volgnummer,
                   e.van, e.naar, e.reden
              FROM event e
             WHERE %s
               AND e.transactie_id >= CAST(:xid AS xid8)
               AND (e.transactie_id, e.id) > (CAST(:xid AS xid8), :eventId)
               AND e.transactie_id < pg_snapshot_xmin(pg_current_snapshot())
             ORDER BY e.transactie_id, e.id
             LIMIT :limit
            """.formatted(NotificatieRepository.eventsOfDv("e", "CAST(:dvId AS uuid)")));

    private static final Statement EVENT_TIME = Statement.named("eventTime", """
            SELECT e.tijdstip FROM event e
             WHERE e.dv_id = :dvId AND e.transactie_id = CAST(:xid AS xid8) AND e.id = :eventId
            """);

    // event_position_dropped (V7) reads the partition bounds from the catalogue
    private static final Statement EVENT_POSITION_DROPPED =
            Statement.named("eventPositionDropped", "SELECT event_position_dropped(CAST(:xid AS xid8)) AS dropped");

    private static final Statement CLUSTER_EPOCH_GET =
            Statement.named("clusterEpochGet", "SELECT epoch FROM cluster_epoch");

    /* Raised by an operator after a restore or promotion; the confirmation is the epoch being raised. */
    private static final Statement CLUSTER_EPOCH_RAISE = Statement.named(
            "clusterEpochRaise", "UPDATE cluster_epoch SET epoch = epoch + 1 WHERE epoch = :expected RETURNING epoch");

    private static final Statement ACKNOWLEDGEMENT_UPSERT = Statement.named("acknowledgementUpsert", """
            INSERT INTO bevestiging (dv_id, cursor, cluster_epoch, transactie_id, event_id, tijdstip)
            VALUES (:dvId, :cursor, :epoch, CAST(:xid AS xid8), :eventId, :now)
            ON CONFLICT (dv_id) DO UPDATE SET cursor = excluded.cursor, cluster_epoch = excluded.cluster_epoch,
                   transactie_id = excluded.transactie_id, event_id = excluded.event_id, tijdstip = excluded.tijdstip
            """);

    /*
     * Per DV: the count beyond the acknowledgement (all of them without one), via the feed's index
     * (see {@link NotificatieRepository#eventsOfDv}). An acknowledgement of another cluster epoch says nothing about
     * this log.
     */
    private static final Statement UNACKNOWLEDGED_TERMINAL_COUNT = Statement.named(
            "unacknowledgedTerminalCount", """
            SELECT d.id, d.oin, d.beheerkanaal, m.gemeld_op,
                   (SELECT count(*) FROM event e
                     WHERE %1$s
                       AND e.naar = ANY (CAST(:terminal AS text[]))
                       AND e.tijdstip < CAST(:now AS timestamptz) - d.bevestigingstermijn
                       AND (b.dv_id IS NULL OR (e.transactie_id, e.id) > (b.transactie_id, b.event_id))) AS aantal,
                   (SELECT min(e.tijdstip) FROM event e
                     WHERE %1$s
                       AND e.naar = ANY (CAST(:terminal AS text[]))
                       AND e.tijdstip < CAST(:now AS timestamptz) - d.bevestigingstermijn
                       AND (b.dv_id IS NULL OR (e.transactie_id, e.id) > (b.transactie_id, b.event_id))) AS oudste,
                   CAST(extract(epoch FROM d.bevestigingstermijn) AS bigint) AS termijn_seconds
              FROM dienstverlener d
              LEFT JOIN bevestiging b ON b.dv_id = d.id AND b.cluster_epoch = :epoch
              LEFT JOIN beheermelding m ON m.dv_id = d.id
            """.formatted(NotificatieRepository.eventsOfDv("e", "d.id")));

    private static final Statement MANAGEMENT_REPORT_RECORD = Statement.named("managementReportRecord", """
            INSERT INTO beheermelding (dv_id, gemeld_op, aantal) VALUES (:dvId, :now, :aantal)
            ON CONFLICT (dv_id) DO UPDATE SET gemeld_op = excluded.gemeld_op, aantal = excluded.aantal
            """);

    private static final String[] TERMINAL =
            NotificatieStatus.TERMINAL.stream().map(NotificatieStatus::dbValue).toArray(String[]::new);

    /** One event of the log. */
    public record Event(
            long id,
            String transactionId,
            Instant time,
            UUID notificatie,
            int volgnummer,
            NotificatieStatus from,
            NotificatieStatus to,
            Reden reden) {}

    public List<Event> readAfter(DbTransaction tx, UUID dvId, Cursor after, int limit) {
        return EVENT_READ_AFTER
                .query(tx)
                .addParam("dvId", dvId)
                .addParam("xid", after.transactionId())
                .addParam("eventId", after.eventId())
                .addParam("limit", limit)
                .execute()
                .map(row -> {
                    String from = DbTypes.text(row, "van");
                    return new Event(
                            DbTypes.longValue(row, "id"),
                            DbTypes.text(row, "transactie_id"),
                            DbTypes.instant(row, "tijdstip"),
                            DbTypes.uuid(row, "notificatie"),
                            DbTypes.integer(row, "volgnummer"),
                            from == null ? null : NotificatieStatus.of(from),
                            NotificatieStatus.of(DbTypes.text(row, "naar")),
                            Reden.ofNullable(DbTypes.text(row, "reden")));
                })
                .toList();
    }

    /**
     * Raises the cluster epoch by one if it is {@code expected} now; empty (nothing changed) otherwise. From then
     * on every cursor and acknowledgement of the old epoch is refused (410 {@code cursor-andere-epoch}).
     */
    public Optional<Integer> raiseClusterEpoch(DbTransaction tx, int expected) {
        return CLUSTER_EPOCH_RAISE
                .get(tx)
                .addParam("expected", expected)
                .execute()
                .map(row -> DbTypes.integer(row, "epoch"));
    }

    /** When the event a cursor points at was logged; empty when it no longer exists (or never did). */
    public Optional<Instant> timeOf(DbTransaction tx, UUID dvId, Cursor cursor) {
        return EVENT_TIME
                .get(tx)
                .addParam("dvId", dvId)
                .addParam("xid", cursor.transactionId())
                .addParam("eventId", cursor.eventId())
                .execute()
                .map(row -> DbTypes.instant(row, "tijdstip"));
    }

    /** Whether the cursor's position lies in a part of the log that retention dropped. */
    public boolean positionDropped(DbTransaction tx, Cursor cursor) {
        return EVENT_POSITION_DROPPED
                .get(tx)
                .addParam("xid", cursor.transactionId())
                .execute()
                .map(row -> row.column("dropped").get(Boolean.class))
                .orElse(false);
    }

    public int clusterEpoch(DbTransaction tx) {
        return CLUSTER_EPOCH_GET
                .get(tx)
                .execute()
                .map(row -> DbTypes.integer(row, "epoch"))
                .orElseThrow();
    }

    public void upsertAcknowledgement(DbTransaction tx, UUID dvId, Cursor cursor, String opaque, Instant now) {
        ACKNOWLEDGEMENT_UPSERT
                .dml(tx)
                .addParam("dvId", dvId)
                .addParam("cursor", opaque)
                .addParam("epoch", cursor.epoch())
                .addParam("xid", cursor.transactionId())
                .addParam("eventId", cursor.eventId())
                .addParam("now", now)
                .execute();
    }

    /** One DV's unacknowledged terminal statuses, with its management channel and when it was last told. */
    record UnacknowledgedCount(
            UUID dvId, String oin, URI channel, Instant lastReported, long count, Instant oldest, Duration termijn) {}

    /**
     * Per DV: the terminal events older than its {@code bevestigingstermijn} beyond its acknowledgement of cluster
     * epoch {@code epoch} (all of them without one).
     */
    List<UnacknowledgedCount> unacknowledgedTerminal(DbTransaction tx, Instant now, int epoch) {
        return UNACKNOWLEDGED_TERMINAL_COUNT
                .query(tx)
                .addParam("terminal", TERMINAL)
                .addParam("now", now)
                .addParam("epoch", epoch)
                .execute()
                .map(row -> {
                    String channel = DbTypes.text(row, "beheerkanaal");
                    return new UnacknowledgedCount(
                            DbTypes.uuid(row, "id"),
                            DbTypes.text(row, "oin"),
                            channel == null ? null : URI.create(channel),
                            DbTypes.instant(row, "gemeld_op"),
                            DbTypes.longValue(row, "aantal"),
                            DbTypes.instant(row, "oudste"),
                            Duration.ofSeconds(DbTypes.longValue(row, "termijn_seconds")));
                })
                .toList();
    }

    /** Records that the DV was told of {@code count} unacknowledged statuses at {@code now}. */
    void recordReport(DbTransaction tx, UUID dvId, Instant now, long count) {
        MANAGEMENT_REPORT_RECORD
                .dml(tx)
                .addParam("dvId", dvId)
                .addParam("now", now)
                .addParam("aantal", count)
                .execute();
    }
}
