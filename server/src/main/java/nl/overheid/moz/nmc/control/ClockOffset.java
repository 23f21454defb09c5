package nl.overheid.moz.nmc.control;

import io.helidon.dbclient.DbTransaction;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.observe.NmcMetrics;

/**
 * How far this instance's clock is from the database's. Every timer of the engine (a task's due and lease, the wait
 * before a send that may have arrived is looked up, the budget windows) is written by one instance and read by
 * another, each on its own clock: two instances 20 s off either way see a 30 s wait end at once and a 60 s lease
 * at 20 s, and may send an e-mail twice (ARCHITECTURE §6). NotifyNL refuses only a skew over 30 s. The database's
 * clock is the one all instances share, so each measures its own against it, publishes it as a gauge (alert rule
 * NmcClockOffset) and logs once when it exceeds {@link #WARN_ABOVE}. It measures the host's clock, never the
 * injected one: that is what NTP keeps, and a test's clock may stand anywhere.
 */
final class ClockOffset {

    private static final Logger LOG = Logger.getLogger(ClockOffset.class.getName());
    /** A sixth of the shortest timer it endangers (the 30 s uncertain-send wait). */
    static final Duration WARN_ABOVE = Duration.ofSeconds(5);

    private final Clock host;
    private final ControlRepository control;
    private final NmcMetrics metrics;
    private boolean warned;

    ClockOffset(Clock host, ControlRepository control, NmcMetrics metrics) {
        this.host = host;
        this.control = control;
        this.metrics = metrics;
    }

    /**
     * Measures, publishes and, on a change across {@link #WARN_ABOVE}, logs the offset: this instance's clock minus
     * the database's, taken at the middle of the query's round trip (so it is accurate to half of that).
     */
    synchronized Duration measure(DbTransaction tx) {
        Instant before = host.instant();
        Instant database = control.databaseNow(tx);
        Instant after = host.instant();
        Instant middle = before.plus(Duration.between(before, after).dividedBy(2));
        Duration offset = Duration.between(database, middle);
        metrics.clockOffset(offset.toNanos() / 1e9);
        boolean above = offset.abs().compareTo(WARN_ABOVE) > 0;
        if (above && !warned) {
            LOG.warning(() -> "this instance's clock is " + seconds(offset.abs())
                    + (offset.isNegative() ? " behind" : " ahead of") + " the database's (more than "
                    + seconds(WARN_ABOVE) + "): the engine's timers, written by one instance and read by another, go "
                    + "wrong by that much (a send looked up too early may go out twice); fix the host's time "
                    + "synchronisation");
        } else if (!above && warned) {
            LOG.info(() -> "this instance's clock is within " + seconds(WARN_ABOVE) + " of the database's again ("
                    + seconds(offset) + ")");
        }
        warned = above;
        return offset;
    }

    private static String seconds(Duration duration) {
        return String.format(java.util.Locale.ROOT, "%.1f s", duration.toMillis() / 1000.0);
    }
}
