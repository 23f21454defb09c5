package nl.overheid.moz.nmc.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.observe.NmcMetrics;
import nl.overheid.moz.nmc.testing.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An instance whose clock runs off the database's says so once, and again once it is back: the engine's timers are
 * written by one instance and read by another (review of the engine at stop 40, finding 4). Measured against the real
 * database's clock, with the host clock offset as NTP might leave it.
 */
class ClockOffsetTest {

    private static final Logger LOGGER = Logger.getLogger(ClockOffset.class.getName());

    private final List<LogRecord> logged = new ArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public synchronized void publish(LogRecord record) {
            logged.add(record);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };
    private final Database database = TestDatabase.get().shared();
    private final NmcMetrics metrics = new NmcMetrics();

    @BeforeEach
    void watch() {
        LOGGER.addHandler(capture);
    }

    @AfterEach
    void stopWatching() {
        LOGGER.removeHandler(capture);
        metrics.close();
    }

    @Test
    void aClockInStepWithTheDatabasesIsMeasuredNearZeroAndSaysNothing() {
        ClockOffset offset = new ClockOffset(Clock.systemUTC(), new ControlRepository(), metrics);
        Duration measured = database.inTransaction(offset::measure);
        assertThat(measured.abs()).isLessThan(Duration.ofSeconds(1));
        assertThat(logged).isEmpty();
    }

    @Test
    void aClockTwentySecondsAheadIsMeasuredAndLoggedOnceThenItsReturnOnce() {
        OffsetClock host = new OffsetClock(Duration.ofSeconds(20));
        ClockOffset offset = new ClockOffset(host, new ControlRepository(), metrics);

        for (int round = 0; round < 3; round++) {
            Duration measured = database.inTransaction(offset::measure);
            assertThat(measured).isBetween(Duration.ofSeconds(19), Duration.ofSeconds(21));
        }
        assertThat(logged).hasSize(1);
        assertThat(logged.getFirst().getLevel()).isEqualTo(Level.WARNING);
        assertThat(logged.getFirst().getMessage())
                .matches("this instance's clock is (19\\.9|20\\.0|20\\.1) s ahead of the database's .*");

        host.offset = Duration.ofSeconds(-8);
        assertThat(database.inTransaction(offset::measure)).isBetween(Duration.ofSeconds(-9), Duration.ofSeconds(-7));
        assertThat(logged).as("still off, now behind: no new line").hasSize(1);

        host.offset = Duration.ZERO;
        database.inTransaction(offset::measure);
        database.inTransaction(offset::measure);
        assertThat(logged).hasSize(2);
        assertThat(logged.get(1).getLevel()).isEqualTo(Level.INFO);
        assertThat(logged.get(1).getMessage()).contains("within 5.0 s");
    }

    /** The host's clock, off by a settable amount. */
    private static final class OffsetClock extends Clock {
        volatile Duration offset;

        OffsetClock(Duration offset) {
            this.offset = offset;
        }

        @Override
        public java.time.ZoneId getZone() {
            return java.time.ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            throw new UnsupportedOperationException();
        }

        @Override
        public java.time.Instant instant() {
            return Clock.systemUTC().instant().plus(offset);
        }
    }
}
