package nl.overheid.moz.nmc.control;

import io.helidon.config.Config;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.engine.Duty;
import nl.overheid.moz.nmc.engine.SendBudget;
import nl.overheid.moz.nmc.engine.TaskKind;
import nl.overheid.moz.nmc.observe.NmcMetrics;

/**
 * The gauges an operator watches (design §11), counted from the database by this duty on every duty interval
 * ({@code engine.control-interval}) and held for the scrape, so {@code /observe/metrics} never queries the
 * database. Every query is bounded: tasks by the partial indexes on open and parked rows; notifications by the
 * {@code bezorgstatus-onbekend} index and by {@code terminaal_sinds} within the window; per DV only the DVs in
 * the register (their OINs are the labels); send tasks parked for a NotifyNL setup refusal by berichttype, service
 * and error class; whether each service's sending budget is closed for its daily limit. A DV whose share of {@code geen-contactgegevens} rises above the
 * threshold is logged once (and again after it fell back) and flagged for an alert rule.
 */
public final class OperationalGauges implements Duty {

    private static final Logger LOG = Logger.getLogger(OperationalGauges.class.getName());

    /** {@code observe.geen-contactgegevens.*}: the window, the threshold share and the least count it needs. */
    public record MissingContactSettings(Duration window, double threshold, long minNotifications) {

        public MissingContactSettings {
            if (window.isNegative() || window.isZero()) {
                throw new IllegalArgumentException("observe.geen-contactgegevens.window must be positive");
            }
            if (!(threshold >= 0 && threshold <= 1)) {
                throw new IllegalArgumentException("observe.geen-contactgegevens.threshold must be between 0 and 1");
            }
            if (minNotifications < 1) {
                throw new IllegalArgumentException("observe.geen-contactgegevens.min-notifications must be at least 1");
            }
        }

        public static MissingContactSettings from(Config config) {
            return new MissingContactSettings(
                    config.get("window").as(Duration.class).orElse(Duration.ofHours(1)),
                    config.get("threshold").asDouble().orElse(0.2),
                    config.get("min-notifications").asLong().orElse(20L));
        }
    }

    private final Database database;
    private final ControlRepository control;
    private final NmcMetrics metrics;
    private final Clock clock;
    private final MissingContactSettings missingContact;
    private final SendBudget budget;
    private final Set<String> reportedAbove = new HashSet<>();
    private final ClockOffset clockOffset;

    /** How long an open send task exists before it is logged (the alert rule NmcSendNotEnding's threshold). */
    static final Duration OPEN_SEND_LOGGED_AFTER = Duration.ofHours(6);

    /** The open send task last logged as long open (0: none); each is logged once. */
    private long loggedOpenSend;

    public OperationalGauges(
            Database database,
            ControlRepository control,
            NmcMetrics metrics,
            Clock clock,
            MissingContactSettings missingContact,
            SendBudget budget) {
        this.budget = budget;
        this.database = database;
        this.control = control;
        this.metrics = metrics;
        this.clock = clock;
        this.missingContact = missingContact;
        // the host's own clock, not the injected one: its offset from the database's is what is measured
        this.clockOffset = new ClockOffset(Clock.systemUTC(), control, metrics);
    }

    @Override
    public String name() {
        return "operational gauges";
    }

    /** Counts everything once; returns 0 (it changes nothing). */
    @Override
    public synchronized int runOnce() {
        Instant now = clock.instant();
        database.inTransactionDo(tx -> {
            clockOffset.measure(tx);
            Map<String, Long> failed = control.failedTasksByKind(tx);
            Map<String, long[]> due = new HashMap<>();
            Map<String, Instant> oldest = new HashMap<>();
            control.dueTasksByKind(tx, now).forEach(tasks -> {
                due.put(tasks.kind(), new long[] {tasks.count(), tasks.leaseExpired()});
                oldest.put(tasks.kind(), tasks.oldest());
            });
            for (TaskKind kind : TaskKind.values()) {
                String kindValue = kind.dbValue();
                metrics.failedTasks(kindValue, failed.getOrDefault(kindValue, 0L));
                long[] counts = due.getOrDefault(kindValue, new long[2]);
                metrics.backlog(kindValue, counts[0], age(oldest.get(kindValue), now), counts[1]);
            }
            Set<String> oins = new HashSet<>();
            control.sendBacklogByDv(tx, now).forEach(backlog -> {
                oins.add(backlog.oin());
                metrics.sendBacklog(backlog.oin(), backlog.count(), age(backlog.oldest(), now));
            });
            control.feedLagByDv(tx).forEach(lag -> metrics.feedLag(lag.oin(), age(lag.oldest(), now)));
            control.webhookLagByDv(tx).forEach(lag -> metrics.webhook(lag.oin(), age(lag.oldest(), now), lag.paused()));
            metrics.statusUnknown(control.statusUnknown(tx));
            metrics.invalidReportOldestWaiting(age(control.invalidReportOldestWaiting(tx), now));
            Optional<ControlRepository.OldestOpenSend> oldestSend = control.oldestOpenSend(tx);
            metrics.sendOldestOpen(
                    oldestSend.map(ControlRepository.OldestOpenSend::ageSeconds).orElse(0.0));
            oldestSend.ifPresent(this::openSend);
            control.missingContactByDv(tx, now.minus(missingContact.window()))
                    .forEach(dv -> missingContact(dv.oin(), dv.terminal(), dv.missing()));
            for (String venster : List.of("huidig", "vorig")) {
                Instant moment = venster.equals("huidig") ? now : now.minusSeconds(60);
                budget.windowUse(tx, moment)
                        .forEach(use -> metrics.sendBudget(
                                use.key(),
                                use.purpose().name().toLowerCase(java.util.Locale.ROOT),
                                venster,
                                use.capacity(),
                                use.taken()));
            }
            Map<List<String>, Long> parked = new HashMap<>();
            control.parkedSetupErrors(tx)
                    .forEach(p -> parked.put(List.of(p.berichttype(), p.service(), p.errorClass()), p.count()));
            metrics.parkedSetupErrors(parked);
            Set<String> closed = new HashSet<>();
            budget.closures(tx, now).forEach(closure -> closed.add(closure.key()));
            budget.keys().forEach(service -> metrics.sendBudgetClosed(service, closed.contains(service)));
            metrics.retainDvs(oins);
            reportedAbove.retainAll(oins);
        });
        return 0;
    }

    /**
     * Logs the oldest open send once when it has been open for {@link #OPEN_SEND_LOGGED_AFTER} (the alert rule
     * {@code NmcSendNotEnding}'s threshold): the gauge has no notification label, and this names the one to look at.
     */
    private void openSend(ControlRepository.OldestOpenSend send) {
        if (send.ageSeconds() < OPEN_SEND_LOGGED_AFTER.toSeconds() || send.task() == loggedOpenSend) {
            return;
        }
        loggedOpenSend = send.task();
        LOG.warning(() -> "send task " + send.task() + " of notification " + send.notification() + " has been open for "
                + Duration.ofSeconds((long) send.ageSeconds()) + " (" + send.postponements() + " postponements, last "
                + (send.lastError() == null ? "error none" : "error " + send.lastError()) + "): a party keeps "
                + "failing for it and only its geldig_tot ends the wait; end it with the operator API (POST "
                + "/notificaties/{id}/overgangen) if it must not go out later");
    }

    private void missingContact(String oin, long terminal, long missing) {
        double share = terminal == 0 ? 0 : (double) missing / terminal;
        boolean above = terminal >= missingContact.minNotifications() && share > missingContact.threshold();
        metrics.missingContactShare(oin, terminal, share, above);
        if (above && reportedAbove.add(oin)) {
            LOG.warning(() -> "DV " + oin + ": " + missing + " of " + terminal
                    + " centralised notifications in the last "
                    + missingContact.window() + " ended geen-contactgegevens (share " + String.format("%.2f", share)
                    + ", threshold " + missingContact.threshold() + "); check the KVK numbers the DV sends and the "
                    + "Profielservice's contact data");
        } else if (!above && reportedAbove.remove(oin)) {
            LOG.info(() -> "DV " + oin + ": share of geen-contactgegevens back at or below the threshold ("
                    + String.format("%.2f", share) + ")");
        }
    }

    private static double age(Instant oldest, Instant now) {
        return oldest == null ? 0 : Math.max(0, Duration.between(oldest, now).toNanos() / 1e9);
    }
}
