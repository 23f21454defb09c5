package nl.overheid.moz.nmc.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A clock the test moves, so seven-day periods pass in milliseconds. Thread-safe. Like the NMC's own clock
 * it ticks in microseconds, PostgreSQL's precision, so an instant survives a round trip through the database.
 */
public final class MutableClock extends Clock {

    private volatile Instant now;

    public MutableClock(Instant start) {
        this.now = start.truncatedTo(java.time.temporal.ChronoUnit.MICROS);
    }

    public static MutableClock startingNow() {
        return new MutableClock(Instant.now());
    }

    public void advance(Duration duration) {
        now = now.plus(duration).truncatedTo(java.time.temporal.ChronoUnit.MICROS);
    }

    @Override
    public Instant instant() {
        return now;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
