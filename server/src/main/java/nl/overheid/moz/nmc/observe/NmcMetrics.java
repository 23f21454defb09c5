package nl.overheid.moz.nmc.observe;

import io.helidon.metrics.api.Counter;
import io.helidon.metrics.api.Gauge;
import io.helidon.metrics.api.Meter;
import io.helidon.metrics.api.MeterRegistry;
import io.helidon.metrics.api.Metrics;
import io.helidon.metrics.api.Tag;
import io.helidon.metrics.api.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The operational signals of design §11, served as Prometheus text at {@code /observe/metrics} (server/OPERATIONS.md,
 * which lists them all). Three sources: counters of what happens in passing (receipts refused, claim
 * rounds, postponements, API requests and problems), gauges set by the {@code OperationalGauges} duty from
 * bounded queries (so a scrape never touches the database, and still answers while it is down), and gauges other
 * duties set (unacknowledged terminal statuses, KEK rows). Labels carry task kinds, operations, parties' error
 * classes, problem types and the OINs of registered DVs only: all bounded, none personal data.
 */
public final class NmcMetrics implements AutoCloseable {

    /** Buckets of the latency histograms, in seconds. */
    private static final Duration[] LATENCY_BUCKETS = {
        Duration.ofMillis(5),
        Duration.ofMillis(10),
        Duration.ofMillis(25),
        Duration.ofMillis(50),
        Duration.ofMillis(100),
        Duration.ofMillis(250),
        Duration.ofMillis(500),
        Duration.ofSeconds(1),
        Duration.ofMillis(2500),
        Duration.ofSeconds(5),
        Duration.ofSeconds(10)
    };

    private final MeterRegistry registry = Metrics.globalRegistry();
    private final Counter rejectedReceipts;
    private final Counter unknownReceiptStatuses;
    private final Counter repairedTasks;
    private final Counter parkedInvalidReports;
    private final Counter webhookEvents;
    private final Counter webhookFailures;
    private final Counter duplicateNotifyIds;
    /** Gauges this instance registered, by name and labels, with the value they read. */
    private final Map<List<Object>, AtomicReference<Double>> gaugeValues = new ConcurrentHashMap<>();

    private final List<Meter> gauges = new CopyOnWriteArrayList<>();

    public NmcMetrics() {
        rejectedReceipts = registry.getOrCreate(Counter.builder("nmc.receipts.rejected")
                .description(
                        "NotifyNL receipts refused: a wrong callback token, a body outside the callback's contract, or a"
                                + " reference that names no attempt"));
        unknownReceiptStatuses = registry.getOrCreate(Counter.builder("nmc.receipts.unknown.status")
                .description("receipts with a status the NMC does not know, recorded without transition"));
        repairedTasks = registry.getOrCreate(Counter.builder("nmc.control.repaired.tasks")
                .description("tasks the control duty planned because a live notification had none"));
        parkedInvalidReports = registry.getOrCreate(Counter.builder("nmc.ongeldig.melden.parked")
                .description("reports of an invalid address to the Profielservice parked as mislukt"));
        webhookEvents = registry.getOrCreate(Counter.builder("nmc.webhook.delivered.events")
                .description("events delivered to DV webhooks with a 2xx"));
        webhookFailures = registry.getOrCreate(Counter.builder("nmc.webhook.failed.deliveries")
                .description(
                        "webhook calls that failed: non-2xx, time-out, connection, oversized answer, refused target"));
        duplicateNotifyIds = registry.getOrCreate(Counter.builder("nmc.notifynl.duplicate.ids")
                .description("NotifyNL ids seen for an attempt that already had another (the e-mail went out twice)"));
        // At 0 before the first failure: increase() over a series that appears with its first failure misses it.
        LDV_FAILURE_CLASSES.forEach(fout -> ldvFailures(fout));
        complaints();
    }

    /** The classes of {@link #ldvWriteFailed} ({@code ldv/LdvSpanExporter} decides which applies). */
    private static final List<String> LDV_FAILURE_CLASSES =
            List.of("connection", "timeout", "refused", "no-table", "disk-full", "error", "unacknowledged");

    /** The NotifyNL services' daily-limit counters at 0 from the start, for the same reason. */
    public void notifyNlServices(Set<String> services) {
        services.forEach(service -> dailyLimits(service));
    }

    /**
     * A notification entered status {@code naar} (acceptance included), by DV (its OIN): the flow per status. Counted
     * when written, inside its transaction, so a transaction retried after a serialisation failure counts again.
     */
    public void notificatieStatus(String oin, String naar) {
        List<Tag> tags = List.of(Tag.create("dv", oin), Tag.create("naar", naar));
        // found once per DV and status: the registry's look-up was about 2 % of the engine's CPU (JFR)
        perDvCounters
                .computeIfAbsent(
                        List.of(TRANSITIONS, tags),
                        key -> registry.getOrCreate(Counter.builder(TRANSITIONS)
                                .tags(tags)
                                .description("notifications that entered a status, per DV")))
                .increment();
    }

    private static final String TRANSITIONS = "nmc.notifications.transitions";
    /** Per-DV counters this instance made, by name and labels: removed with their DV like the gauges. */
    private final Map<List<Object>, Counter> perDvCounters = new ConcurrentHashMap<>();

    private final java.util.Map<String, Double> lastCompleted = new java.util.concurrent.ConcurrentHashMap<>();

    public void receiptRejected() {
        rejectedReceipts.increment();
    }

    public void receiptStatusUnknown() {
        unknownReceiptStatuses.increment();
    }

    public void invalidReportParked() {
        parkedInvalidReports.increment();
    }

    /**
     * An invalid-address report the NMC did not send ({@code reden}: {@code instelling} when
     * {@code profielservice.invalid-address-report} is none, {@code adres-onbekend} when the attempt kept no
     * contactgegeven, {@code contactgegeven-gewijzigd} when the Profielservice's entry changed since the attempt,
     * {@code contactgegeven-weg} when it is gone or no longer offered to the DV), per DV: the need stays visible.
     */
    public void invalidAddressReportNotSent(String oin, String reden) {
        registry.getOrCreate(Counter.builder("nmc.invalid.address.reports.not.sent")
                        .description("Invalid-address reports not sent to the Profielservice, per DV and reason")
                        .tags(List.of(Tag.create("dv", oin), Tag.create("reden", reden))))
                .increment();
    }

    /**
     * A round of a periodic duty ended: its duration, and — when it completed — the moment, so an alert can tell a
     * duty that stopped running ({@code nmc_duty_last_completed_seconds}); rounds that failed or outlived their
     * deadline are counted ({@code nmc_duty_rounds_total{duty,uitkomst}}).
     */
    public void dutyRan(String duty, Duration took, boolean completed) {
        List<Tag> tags = List.of(Tag.create("duty", duty));
        dutyRounds(duty, "voltooid").increment(completed ? 1 : 0);
        // both outcomes exist from the first round on, so increase() sees the first failure
        dutyRounds(duty, "mislukt").increment(completed ? 0 : 1);
        if (completed) {
            lastCompleted.put(duty, System.currentTimeMillis() / 1000.0);
            registry.getOrCreate(
                    Gauge.builder("nmc.duty.last.completed.seconds", () -> lastCompleted.getOrDefault(duty, 0.0))
                            .description("When the duty last completed a round (epoch seconds)")
                            .tags(tags));
        }
    }

    private Counter dutyRounds(String duty, String uitkomst) {
        return registry.getOrCreate(Counter.builder("nmc.duty.rounds")
                .description("Rounds of the periodic duties, by outcome")
                .tags(List.of(Tag.create("duty", duty), Tag.create("uitkomst", uitkomst))));
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

    public void duplicateNotifyId() {
        duplicateNotifyIds.increment();
    }

    /** Buckets of the processing log's write latency, in seconds: a write is a single-row insert. */
    private static final Duration[] LDV_WRITE_BUCKETS = {
        Duration.ofNanos(500_000),
        Duration.ofMillis(1),
        Duration.ofMillis(2),
        Duration.ofMillis(5),
        Duration.ofMillis(10),
        Duration.ofMillis(25),
        Duration.ofMillis(50),
        Duration.ofMillis(100),
        Duration.ofMillis(250),
        Duration.ofMillis(500),
        Duration.ofSeconds(1),
        Duration.ofSeconds(2),
        Duration.ofSeconds(5)
    };

    // ---- the processing log (ldv/) ----

    /** A record the processing log's store acknowledged, with how long the write took (ensuring the table included). */
    public void ldvWritten(Duration took) {
        this.<Timer>meter(
                        List.of("ldv write"),
                        () -> registry.getOrCreate(Timer.builder("nmc.ldv.write.duration")
                                .buckets(LDV_WRITE_BUCKETS)
                                .percentiles(0.5, 0.99)
                                .description("acknowledged writes to the processing log's store, by duration")))
                .record(took);
    }

    /**
     * A record the store did not take, by class ({@code connection}, {@code timeout}, {@code refused},
     * {@code no-table}, {@code disk-full}, {@code error}, {@code unacknowledged}): its call did not happen.
     */
    public void ldvWriteFailed(String fout) {
        ldvFailures(fout).increment();
    }

    private Counter ldvFailures(String fout) {
        return registry.getOrCreate(Counter.builder("nmc.ldv.write.failures")
                .tags(List.of(Tag.create("fout", fout)))
                .description("records the processing log's store did not take (the call did not happen), by class"));
    }

    // ---- NotifyNL's answers (ARCHITECTURE §7.4, "NotifyNL's answers") ----

    /**
     * A send NotifyNL refused for its setup (template, personalisation, trial mode, permission, key, service): by
     * berichttype (a registered code), NotifyNL service (a configured name) and error class; {@code parked}: this
     * refusal parked the send task for an operator.
     */
    public void notifyNlSetupError(String berichttype, String service, String errorClass, boolean parked) {
        List<Tag> tags = List.of(
                Tag.create("berichttype", berichttype), Tag.create("service", service), Tag.create("fout", errorClass));
        registry.getOrCreate(Counter.builder("nmc.notifynl.setup.errors")
                        .tags(tags)
                        .description("sends NotifyNL refused for its setup, never blamed on the notification"))
                .increment();
        if (parked) {
            registry.getOrCreate(Counter.builder("nmc.notifynl.setup.errors.parked")
                            .tags(tags)
                            .description("send tasks parked as mislukt after repeated setup refusals"))
                    .increment();
        }
    }

    /** A send refused for the daily limit of a NotifyNL service (its sending budget closes until the window ends). */
    public void notifyNlDailyLimit(String service) {
        dailyLimits(service).increment();
    }

    private Counter dailyLimits(String service) {
        return registry.getOrCreate(Counter.builder("nmc.notifynl.daily.limit")
                .tags(List.of(Tag.create("service", service)))
                .description("sends refused for the NotifyNL service's daily limit"));
    }

    /** A complaint callback of NotifyNL (a recipient marked the e-mail as spam): counted, never a transition. */
    public void notifyNlComplaint() {
        complaints().increment();
    }

    private Counter complaints() {
        return registry.getOrCreate(Counter.builder("nmc.notifynl.complaints")
                .description("complaint callbacks of NotifyNL, counted and never a status change"));
    }

    // ---- the engine (EngineEvents, wired in the composition root) ----

    /** One claim round of a task kind: counted, its latency in a histogram, the tasks it claimed. */
    public void claimRound(String kind, Duration took, int claimed) {
        List<Tag> tags = List.of(Tag.create("soort", kind));
        registry.getOrCreate(
                        Counter.builder("nmc.engine.claim.rounds").tags(tags).description("claim rounds per task kind"))
                .increment();
        registry.getOrCreate(Counter.builder("nmc.engine.claimed.tasks")
                        .tags(tags)
                        .description("tasks claimed per task kind"))
                .increment(claimed);
        registry.getOrCreate(Timer.builder("nmc.engine.claim.duration")
                        .tags(tags)
                        .buckets(LATENCY_BUCKETS)
                        .description("duration of one claim transaction per task kind"))
                .record(took);
    }

    /** Tasks re-claimed after their previous claim's lease ran out (a worker died or hung). */
    public void leasesExpired(String kind, int count) {
        registry.getOrCreate(Counter.builder("nmc.engine.lease.expiries")
                        .tags(List.of(Tag.create("soort", kind)))
                        .description("tasks claimed again after their lease expired"))
                .increment(count);
    }

    /**
     * A task postponed because a party failed, by party ({@code notifynl}, {@code profielservice}, {@code ldv},
     * {@code nmc} for waiting on its own work or a KEK this instance does not hold yet) and error class ({@code http-503}, {@code connection}, …).
     */
    public void postponed(String kind, String cause) {
        String party;
        String error;
        if (cause == null) {
            party = "nmc";
            error = "gepland";
        } else if (cause.startsWith("ldv")) {
            party = "ldv";
            error = cause.equals("ldv") ? "onbeschikbaar" : cause.substring(cause.indexOf('-') + 1);
        } else if (cause.startsWith("profielservice-")) {
            party = "profielservice";
            error = cause.substring("profielservice-".length());
        } else if (cause.equals("ontvangst-open") || cause.equals("kek-onbekend")) {
            party = "nmc";
            error = cause;
        } else {
            party = "notifynl";
            error = cause;
        }
        registry.getOrCreate(
                        Counter.builder("nmc.engine.postponements")
                                .tags(List.of(
                                        Tag.create("soort", kind),
                                        Tag.create("partij", party),
                                        Tag.create("fout", error)))
                                .description(
                                        "tasks postponed because a party failed (no attempt counted), by party and error class"))
                .increment();
    }

    // ---- acceptance (acceptance/) ----

    /** Buckets of the acceptance's stages, in seconds: most take well under a millisecond. */
    private static final Duration[] STAGE_BUCKETS = {
        Duration.ofNanos(100_000),
        Duration.ofNanos(250_000),
        Duration.ofNanos(500_000),
        Duration.ofMillis(1),
        Duration.ofMillis(2),
        Duration.ofMillis(5),
        Duration.ofMillis(10),
        Duration.ofMillis(25),
        Duration.ofMillis(100)
    };

    /**
     * Time spent in one stage of an acceptance ({@code stap}: voorbereiden, verzegelen, groep, register, quotum,
     * transactie, teruggeven), so the benchmark can say where a request's time goes. {@code verzegelen} (sealing
     * recipient and personalisation) is counted per request that is sealed: never for a bulk item found to be a
     * repeat.
     */
    public void acceptanceStage(String stap, long nanos) {
        meter(
                        List.of("stage", stap),
                        () -> registry.getOrCreate(Timer.builder("nmc.acceptance.stage.duration")
                                .tags(List.of(Tag.create("stap", stap)))
                                .buckets(STAGE_BUCKETS)
                                .description("time spent in a stage of the acceptance, by stage")))
                .record(Duration.ofNanos(nanos));
    }

    /**
     * The meters every request records into, found once: the registry's look-up (a builder, its tags, the registry's
     * map) was about 5 % of the NMC's CPU per acceptance (JFR, benchmark acceptance). Only meters that are never
     * removed are kept here; the per-DV ones go with their DV and are looked up each time.
     */
    private final Map<List<String>, Meter> hotMeters = new ConcurrentHashMap<>();

    @SuppressWarnings("unchecked")
    private <M extends Meter> M meter(List<String> key, java.util.function.Supplier<M> lookUp) {
        return (M) hotMeters.computeIfAbsent(key, k -> lookUp.get());
    }

    /** A group of single acceptances written in one transaction, with how many it held. */
    public void acceptanceGroup(int members) {
        this.<Counter>meter(
                        List.of("groups"),
                        () -> registry.getOrCreate(Counter.builder("nmc.acceptance.groups")
                                .description("groups of single acceptances written in one transaction")))
                .increment();
        this.<Counter>meter(
                        List.of("group members"),
                        () -> registry.getOrCreate(Counter.builder("nmc.acceptance.group.members")
                                .description("single acceptances written in groups (divided by"
                                        + " nmc.acceptance.groups: the mean group size)")))
                .increment(members);
    }

    /** A group that failed and was written again one transaction per member. */
    public void acceptanceGroupFallback() {
        registry.getOrCreate(Counter.builder("nmc.acceptance.group.fallbacks")
                        .description("groups of single acceptances that failed and were written one by one"))
                .increment();
    }

    /** Single acceptances waiting for their group, read when scraped. */
    public void acceptanceGroupWaiting(java.util.function.Supplier<Number> waiting) {
        gauges.add(registry.getOrCreate(Gauge.builder(
                        "nmc.acceptance.group.waiting", () -> waiting.get().doubleValue())
                .description("single acceptances waiting for their group to be written")));
    }

    // ---- the API (the HTTP filter) ----

    /** A bulk call's pause, made while other DVs' calls were in progress on the instance ({@code http.bulk-share}). */
    public void bulkPaused(long nanos) {
        this.<Timer>meter(
                        List.of("bulk pauses"),
                        () -> registry.getOrCreate(
                                Timer.builder("nmc.api.bulk.pauses")
                                        .description(
                                                "pauses of bulk calls so that other DVs' calls got the cores (http.bulk-share)")))
                .record(Duration.ofNanos(nanos));
    }

    /** One answered request: counted by operation and status, its latency by operation. */
    public void apiRequest(String operatie, int status, Duration took) {
        String code = Integer.toString(status);
        this.<Counter>meter(
                        List.of("requests", operatie, code),
                        () -> registry.getOrCreate(Counter.builder("nmc.api.requests")
                                .tags(List.of(Tag.create("operatie", operatie), Tag.create("status", code)))
                                .description("API requests by operation (method and path template) and status")))
                .increment();
        this.<Timer>meter(
                        List.of("request duration", operatie),
                        () -> registry.getOrCreate(Timer.builder("nmc.api.request.duration")
                                .tags(List.of(Tag.create("operatie", operatie)))
                                .buckets(LATENCY_BUCKETS)
                                .description("API request latency by operation")))
                .record(took);
    }

    /**
     * The DV calls in progress on this instance under the concurrency limits, read when scraped: {@code soort} is
     * {@code alle} (every DV call) or {@code bulk}; beside {@code http.max-concurrent-requests} and
     * {@code http.max-concurrent-bulk-requests} they show how near the instance is to refusing with 429.
     */
    public void apiCallsInProgress(String soort, java.util.function.IntSupplier inProgress) {
        gauges.add(registry.getOrCreate(Gauge.builder("nmc.api.calls.in.progress", () -> (double) inProgress.getAsInt())
                .tags(List.of(Tag.create("soort", soort)))
                .description("DV calls admitted and not yet answered on this instance, all or bulk")));
    }

    /** One problem answered, by operation, problem type and status. */
    public void apiProblem(String operatie, String type, int status) {
        registry.getOrCreate(Counter.builder("nmc.api.problems")
                        .tags(List.of(
                                Tag.create("operatie", operatie),
                                Tag.create("type", type),
                                Tag.create("status", Integer.toString(status))))
                        .description("RFC 9457 problems answered, by operation, type and status"))
                .increment();
    }

    // ---- gauges ----

    /** Rows whose data key is wrapped under a KEK version (the re-wrap's progress; 0: the version can go). */
    public void kekRows(int version, long count) {
        set(
                "nmc.kek.rows",
                "notifications whose data key is wrapped under this KEK version",
                List.of(Tag.create("versie", Integer.toString(version))),
                count);
    }

    /** Rows the re-wrap skips because their data key does not unwrap (damaged, or a wrong KEK); 0 normally. */
    public void kekRowsUnreadable(long count) {
        set(
                "nmc.kek.rows.unreadable",
                "notifications whose data key does not unwrap under its KEK version",
                List.of(),
                count);
    }

    /**
     * The DV's terminal statuses older than its bevestigingstermijn and beyond its acknowledgement, as last
     * counted (design §11), labelled with the DV's OIN (an organisation's number, not personal data).
     */
    public void unacknowledgedTerminal(String oin, long count) {
        set(
                "nmc.feed.unacknowledged.terminal",
                "terminal statuses older than the DV's bevestigingstermijn, not acknowledged",
                List.of(Tag.create("dv", oin)),
                count);
    }

    /**
     * A NotifyNL service's budget share ({@code purpose}: sending or reconciling) in a window ({@code venster}:
     * the current or the previous minute): its tokens and how many were taken, as last counted.
     */
    public void sendBudget(String service, String purpose, String venster, int capacity, int taken) {
        List<Tag> tags =
                List.of(Tag.create("service", service), Tag.create("doel", purpose), Tag.create("venster", venster));
        set("nmc.send.budget.capacity", "tokens of the NotifyNL service's budget share per minute", tags, capacity);
        set(
                "nmc.send.budget.taken",
                "tokens of the share taken in the window (given-back ones not counted)",
                tags,
                taken);
    }

    /**
     * Send tasks parked for a setup refusal, by berichttype, NotifyNL service and error class, as last counted: every
     * label set seen before and not in {@code counts} is set to 0, so an alert clears once they are reopened.
     */
    public void parkedSetupErrors(Map<List<String>, Long> counts) {
        String name = "nmc.notifynl.setup.errors.parked.tasks";
        Map<List<Tag>, Long> values = new java.util.HashMap<>();
        gaugeValues.keySet().stream().filter(key -> key.get(0).equals(name)).forEach(key -> {
            @SuppressWarnings("unchecked")
            List<Tag> tags = (List<Tag>) key.get(1);
            values.put(tags, 0L);
        });
        counts.forEach((key, count) -> values.put(
                List.of(
                        Tag.create("berichttype", key.get(0)),
                        Tag.create("service", key.get(1)),
                        Tag.create("fout", key.get(2))),
                count));
        values.forEach((tags, count) -> set(
                name,
                "send tasks parked as mislukt for a NotifyNL setup refusal, waiting for an operator",
                tags,
                count));
    }

    /** Whether a NotifyNL service's sending budget is closed (1) for its daily limit, as last counted. */
    public void sendBudgetClosed(String service, boolean closed) {
        set(
                "nmc.send.budget.closed",
                "1 while the NotifyNL service's sending budget is closed (its daily limit is used up)",
                List.of(Tag.create("service", service)),
                closed ? 1 : 0);
    }

    /** Tasks parked as {@code mislukt} of one kind, as last counted. */
    public void failedTasks(String kind, long count) {
        set(
                "nmc.tasks.failed",
                "tasks parked as mislukt, waiting for an operator",
                List.of(Tag.create("soort", kind)),
                count);
    }

    /** Open tasks of a kind that are due, the age of the oldest due one, and those whose lease ran out unclaimed. */
    public void backlog(String kind, long due, double oldestDueSeconds, long leaseExpired) {
        List<Tag> tags = List.of(Tag.create("soort", kind));
        set("nmc.tasks.backlog", "open tasks that are due (in progress included)", tags, due);
        set(
                "nmc.tasks.oldest.due.seconds",
                "how long the oldest due open task has been due (0: none)",
                tags,
                oldestDueSeconds);
        set(
                "nmc.tasks.lease.expired",
                "open tasks whose lease ran out and that no claim took over yet",
                tags,
                leaseExpired);
    }

    /** The send backlog of one registered DV. */
    public void sendBacklog(String oin, long due, double oldestDueSeconds) {
        List<Tag> tags = List.of(Tag.create("dv", oin));
        set("nmc.sending.backlog", "due verzenden tasks per DV", tags, due);
        set(
                "nmc.sending.oldest.due.seconds",
                "how long the DV's oldest due verzenden task has been due",
                tags,
                oldestDueSeconds);
    }

    /**
     * How long the oldest open invalid-address report has waited since it was planned (0 when none waits): a report
     * is postponed, never parked, while the Profielservice or the LDV fails, so this is how an outage shows.
     */
    public void invalidReportOldestWaiting(double seconds) {
        set(
                "nmc.invalid.address.reports.oldest.waiting.seconds",
                "age of the oldest open report of an invalid address to the Profielservice; 0 when none waits",
                List.of(),
                seconds);
    }

    /**
     * How long the oldest open send task has existed (0 when none): a send that a party keeps failing is postponed
     * until its notification's geldig_tot, for ever without one, so this is how such a send shows.
     */
    public void sendOldestOpen(double seconds) {
        set(
                "nmc.sending.oldest.open.seconds",
                "age of the oldest open verzenden task, postponed or not; 0 when none",
                List.of(),
                seconds);
    }

    /**
     * This instance's clock minus the database's, in seconds: every engine timer is written by one instance and read
     * by another, so a skew between them shortens leases and waits.
     */
    public void clockOffset(double seconds) {
        set(
                "nmc.clock.offset.seconds",
                "this instance's clock minus the database's clock, measured each control interval",
                List.of(),
                seconds);
    }

    /** Notifications in {@code bezorgstatus-onbekend}, as last counted. */
    public void statusUnknown(long count) {
        set("nmc.notifications.status.unknown", "notifications in bezorgstatus-onbekend", List.of(), count);
    }

    /**
     * The share of a DV's centralised notifications that ended {@code geen-contactgegevens} within the window,
     * and whether it is above the threshold (1) or not (0), for an alert rule.
     */
    public void missingContactShare(String oin, long terminal, double share, boolean aboveThreshold) {
        List<Tag> tags = List.of(Tag.create("dv", oin));
        set(
                "nmc.geen.contactgegevens.terminal",
                "centralised notifications that ended within the window",
                tags,
                terminal);
        set("nmc.geen.contactgegevens.share", "share of those that ended geen-contactgegevens", tags, share);
        set(
                "nmc.geen.contactgegevens.above.threshold",
                "1 while the share is above observe.geen-contactgegevens.threshold (with enough notifications)",
                tags,
                aboveThreshold ? 1 : 0);
    }

    /**
     * How far a DV is behind in its feed: the age of the oldest event it has not acknowledged (0: none), as last
     * counted.
     */
    public void feedLag(String oin, double seconds) {
        set(
                "nmc.feed.lag.seconds",
                "age of the DV's oldest event not acknowledged through the feed (0: none)",
                List.of(Tag.create("dv", oin)),
                seconds);
    }

    /**
     * A DV's webhook: the age of the oldest event it has not delivered (0: none), and whether it is paused after
     * the DV's failures (1) until its wait ends or the DV resumes it.
     */
    public void webhook(String oin, double lagSeconds, boolean paused) {
        List<Tag> tags = List.of(Tag.create("dv", oin));
        set(
                "nmc.webhook.lag.seconds",
                "age of the oldest event the DV's webhook has not delivered (0: none)",
                tags,
                lagSeconds);
        set("nmc.webhook.paused", "1 while the DV's webhook is paused after its failures", tags, paused ? 1 : 0);
    }

    /** Removes the per-DV gauges of DVs no longer in the register (labels stay bounded by the register). */
    public void retainDvs(Set<String> oins) {
        List<List<Object>> gone = new ArrayList<>();
        perDvCounters.keySet().forEach(key -> {
            @SuppressWarnings("unchecked")
            List<Tag> tags = (List<Tag>) key.get(1);
            if (tags.stream().anyMatch(tag -> tag.key().equals("dv") && !oins.contains(tag.value()))) {
                perDvCounters.remove(key);
                registry.remove((String) key.get(0), tags);
            }
        });
        gaugeValues.keySet().forEach(key -> {
            @SuppressWarnings("unchecked")
            List<Tag> tags = (List<Tag>) key.get(1);
            if (tags.stream().anyMatch(tag -> tag.key().equals("dv") && !oins.contains(tag.value()))) {
                gone.add(key);
            }
        });
        for (List<Object> key : gone) {
            gaugeValues.remove(key);
            @SuppressWarnings("unchecked")
            List<Tag> tags = (List<Tag>) key.get(1);
            registry.remove((String) key.get(0), tags);
        }
    }

    private void set(String name, String description, List<Tag> tags, double value) {
        gaugeValues
                .computeIfAbsent(List.of(name, tags), key -> {
                    AtomicReference<Double> holder = new AtomicReference<>(0.0);
                    gauges.add(registry.getOrCreate(
                            Gauge.builder(name, () -> holder.get()).tags(tags).description(description)));
                    return holder;
                })
                .set(value);
    }

    /** The gauges read this instance's values, and its per-DV counters name its register: remove them with it. */
    @Override
    public void close() {
        gauges.forEach(registry::remove);
        perDvCounters.keySet().forEach(key -> {
            @SuppressWarnings("unchecked")
            List<Tag> tags = (List<Tag>) key.get(1);
            registry.remove((String) key.get(0), tags);
        });
        perDvCounters.clear();
    }
}
