package nl.overheid.moz.nmc.sending;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;

/**
 * The window of NotifyNL's daily limit of a service: a calendar day in {@code zone}. NotifyNL counts per UTC day (its
 * Redis key holds {@code datetime.now(UTC)}'s date; its documentation: "These limits reset at midnight UTC"), so the
 * default zone is UTC. A send refused for the daily limit waits until the next day has begun plus {@code margin}: the
 * two clocks differ a little, and a retry a second before NotifyNL's midnight would close the service for a whole day
 * more. A refusal within the margin after midnight therefore means NotifyNL's clock had not passed it yet: the send
 * waits until midnight plus the margin, not a day.
 *
 * @param zone   the time zone whose calendar day the limit counts ({@code notifynl.daily-limit-zone}, default UTC)
 * @param margin how long after the day's start a send is tried again ({@code notifynl.daily-limit-margin})
 */
public record DailyLimitWindow(ZoneId zone, Duration margin) {

    public static final Duration DEFAULT_MARGIN = Duration.ofMinutes(1);

    public DailyLimitWindow {
        if (margin.isNegative() || margin.compareTo(Duration.ofHours(1)) > 0) {
            throw new IllegalArgumentException("notifynl.daily-limit-margin must be between PT0S and PT1H");
        }
    }

    /** From configuration: a zone id ({@code UTC}, {@code Europe/Amsterdam}) and the margin. */
    public static DailyLimitWindow of(String zone, Duration margin) {
        try {
            return new DailyLimitWindow(ZoneId.of(zone), margin);
        } catch (DateTimeException notAZone) {
            throw new IllegalArgumentException("notifynl.daily-limit-zone is not a time zone: " + zone);
        }
    }

    /** NotifyNL's own window: the UTC day, one minute's margin. */
    public static DailyLimitWindow defaults() {
        return new DailyLimitWindow(ZoneId.of("UTC"), DEFAULT_MARGIN);
    }

    /** When a send refused for the daily limit at {@code refusedAt} is tried again. */
    public Instant reopensAfter(Instant refusedAt) {
        LocalDate day = refusedAt.atZone(zone).toLocalDate();
        Instant dayStartPlusMargin = day.atStartOfDay(zone).toInstant().plus(margin);
        if (refusedAt.isBefore(dayStartPlusMargin)) {
            return dayStartPlusMargin;
        }
        return day.plusDays(1).atStartOfDay(zone).toInstant().plus(margin);
    }
}
