package nl.overheid.moz.nmc.observe;

import io.helidon.metrics.api.Counter;
import io.helidon.metrics.api.Gauge;
import io.helidon.metrics.api.Meter;
import io.helidon.metrics.api.MeterRegistry;
import io.helidon.metrics.api.Metrics;
import java.util.List;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.db.DbTypes;
import nl.overheid.moz.nmc.db.Statement;

/**
 * The operational signals of design §11, served at {@code /observe/metrics}: counters for what happens in
 * passing (refused receipts, receipts with a status the NMC does not know, tasks the control duty had to
 * re-plan) and gauges read from the database on each scrape (tasks parked as {@code mislukt}, notifications
 * in {@code bezorgstatus-onbekend}); both gauge queries use partial indexes.
 */
public final class NmcMetrics implements AutoCloseable {

    private static final Statement TASK_COUNT_FAILED = Statement.named("taskCountFailed",
            "SELECT count(*) AS n FROM taak WHERE status = 'mislukt'");
    private static final Statement NOTIFICATIE_COUNT_STATUS_UNKNOWN = Statement.named("notificatieCountStatusUnknown",
            "SELECT count(*) AS n FROM notificatie WHERE status = 'bezorgstatus-onbekend'");

    private final MeterRegistry registry = Metrics.globalRegistry();
    private final Counter rejectedReceipts;
    private final Counter unknownReceiptStatuses;
    private final Counter repairedTasks;
    private final Counter parkedInvalidReports;
    private final Counter webhookEvents;
    private final Counter webhookFailures;
    private final List<Meter> gauges;
    private final java.util.Map<String, java.util.concurrent.atomic.AtomicLong> unacknowledged =
            new java.util.concurrent.ConcurrentHashMap<>();
    private final List<Meter> perDv = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final java.util.Map<Integer, java.util.concurrent.atomic.AtomicLong> kekRows =
            new java.util.concurrent.ConcurrentHashMap<>();

    public NmcMetrics(Database database) {
        rejectedReceipts = registry.getOrCreate(Counter.builder("nmc.receipts.rejected")
                .description("NotifyNL receipts refused: wrong callback token or a reference that names no attempt"));
        unknownReceiptStatuses = registry.getOrCreate(Counter.builder("nmc.receipts.unknown.status")
                .description("receipts with a status the NMC does not know, recorded without transition"));
        repairedTasks = registry.getOrCreate(Counter.builder("nmc.control.repaired.tasks")
                .description("tasks the control duty planned because a live notification had none"));
        parkedInvalidReports = registry.getOrCreate(Counter.builder("nmc.ongeldig.melden.parked")
                .description("reports of an invalid address to the Profielservice parked as mislukt"));
        webhookEvents = registry.getOrCreate(Counter.builder("nmc.webhook.delivered.events")
                .description("events delivered to DV webhooks with a 2xx"));
        webhookFailures = registry.getOrCreate(Counter.builder("nmc.webhook.failed.deliveries")
                .description("webhook calls that failed: non-2xx, time-out, connection, oversized answer, refused target"));
        gauges = List.of(
                registry.getOrCreate(Gauge.builder("nmc.tasks.failed", () -> count(database, TASK_COUNT_FAILED))
                        .description("tasks parked as mislukt, waiting for an operator")),
                registry.getOrCreate(Gauge.builder("nmc.notifications.status.unknown",
                                () -> count(database, NOTIFICATIE_COUNT_STATUS_UNKNOWN))
                        .description("notifications in bezorgstatus-onbekend")));
    }

    public void receiptRejected() {
        rejectedReceipts.increment();
    }

    public void receiptStatusUnknown() {
        unknownReceiptStatuses.increment();
    }

    public void invalidReportParked() {
        parkedInvalidReports.increment();
    }

    public void tasksRepaired(long count) {
        repairedTasks.increment(count);
    }

    public void webhookDelivered(int events) {
        webhookEvents.increment(events);
    }

    public void webhookFailed() {
        webhookFailures.increment();
    }

    /** Rows whose data key is wrapped under a KEK version (the re-wrap's progress; 0: the version can go). */
    public void kekRows(int version, long count) {
        kekRows.computeIfAbsent(version, key -> {
            java.util.concurrent.atomic.AtomicLong value = new java.util.concurrent.atomic.AtomicLong();
            perDv.add(registry.getOrCreate(Gauge.builder("nmc.kek.rows", value::get)
                    .tags(List.of(io.helidon.metrics.api.Tag.create("versie", Integer.toString(key))))
                    .description("notifications whose data key is wrapped under this KEK version")));
            return value;
        }).set(count);
    }

    /**
     * The DV's terminal statuses older than its bevestigingstermijn and beyond its acknowledgement, as last
     * counted (design §11), labelled with the DV's OIN (an organisation's number, not personal data).
     */
    public void unacknowledgedTerminal(String oin, long count) {
        unacknowledged.computeIfAbsent(oin, key -> {
            java.util.concurrent.atomic.AtomicLong value = new java.util.concurrent.atomic.AtomicLong();
            perDv.add(registry.getOrCreate(Gauge.builder("nmc.feed.unacknowledged.terminal", value::get)
                    .tags(List.of(io.helidon.metrics.api.Tag.create("dv", key)))
                    .description("terminal statuses older than the DV's bevestigingstermijn, not acknowledged")));
            return value;
        }).set(count);
    }

    private static long count(Database database, Statement statement) {
        return database.inTransaction(tx -> statement.get(tx).execute().map(row -> DbTypes.longValue(row, "n"))
                .orElseThrow());
    }

    /** The gauges read this instance's database: remove them with it. */
    @Override
    public void close() {
        gauges.forEach(registry::remove);
        perDv.forEach(registry::remove);
    }
}
