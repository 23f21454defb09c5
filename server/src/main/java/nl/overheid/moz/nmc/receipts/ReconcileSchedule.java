package nl.overheid.moz.nmc.receipts;

import io.helidon.config.Config;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * When reconciliation asks NotifyNL about an attempt without a receipt (design §7.3): at the offsets of
 * {@code steps} after the send (1 h, 6 h, 24 h), then every {@code interval} (daily), until NotifyNL's
 * retention has passed; after that NotifyNL no longer knows the e-mail, so an outcome not found by then is not found.
 */
public record ReconcileSchedule(List<Duration> steps, Duration interval, Duration notifyRetention) {

    public static final List<Duration> DEFAULT_STEPS =
            List.of(Duration.ofHours(1), Duration.ofHours(6), Duration.ofHours(24));
    public static final Duration DEFAULT_INTERVAL = Duration.ofDays(1);
    public static final Duration DEFAULT_NOTIFY_RETENTION = Duration.ofDays(7);

    public ReconcileSchedule {
        steps = List.copyOf(steps);
        if (steps.isEmpty() || interval.isNegative() || interval.isZero() || notifyRetention.isNegative()) {
            throw new IllegalArgumentException("reconciliation needs steps, a positive interval and a retention");
        }
    }

    public static ReconcileSchedule from(Config lifecycle) {
        return new ReconcileSchedule(
                lifecycle.get("reconcile-steps").asList(Duration.class).orElse(DEFAULT_STEPS),
                lifecycle.get("reconcile-interval").as(Duration.class).orElse(DEFAULT_INTERVAL),
                lifecycle.get("notify-retention").as(Duration.class).orElse(DEFAULT_NOTIFY_RETENTION));
    }

    /** The first query after a send. */
    public Instant first(Instant sentAt) {
        return sentAt.plus(steps.getFirst());
    }

    /** Whether NotifyNL's retention of an e-mail sent at {@code sentAt} has ended at {@code moment}. */
    public boolean endedBefore(Instant sentAt, Instant moment) {
        return !moment.isBefore(sentAt.plus(notifyRetention));
    }

    /** The next query after one at {@code now}; empty once NotifyNL's retention has passed. */
    public Optional<Instant> next(Instant sentAt, Instant now) {
        if (endedBefore(sentAt, now)) {
            return Optional.empty();
        }
        Instant end = sentAt.plus(notifyRetention);
        for (Duration step : steps) {
            Instant at = sentAt.plus(step);
            if (at.isAfter(now)) {
                return Optional.of(at.isAfter(end) ? end : at);
            }
        }
        Instant at = sentAt.plus(steps.getLast());
        while (!at.isAfter(now)) {
            at = at.plus(interval);
        }
        return Optional.of(at.isAfter(end) ? end : at);
    }
}
