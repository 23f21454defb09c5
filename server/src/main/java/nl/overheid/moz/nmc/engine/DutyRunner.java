package nl.overheid.moz.nmc.engine;

import java.time.Duration;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Runs the {@link Duty duties} one after another every interval on one virtual thread. A failing duty is
 * logged and tried again at the next interval; it does not stop the others.
 */
public final class DutyRunner implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(DutyRunner.class.getName());

    private final List<Duty> duties;
    private final Duration interval;
    private volatile boolean running;
    private Thread loop;

    public DutyRunner(List<Duty> duties, Duration interval) {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("duty interval must be positive");
        }
        this.duties = List.copyOf(duties);
        this.interval = interval;
    }

    public synchronized void start() {
        running = true;
        loop = Thread.ofVirtual().name("nmc-duties").start(() -> {
            while (running) {
                try {
                    Thread.sleep(interval);
                } catch (InterruptedException e) {
                    return;
                }
                runAllOnce();
            }
        });
    }

    /** Runs every duty once now; returns the total they did. */
    public int runAllOnce() {
        int done = 0;
        for (Duty duty : duties) {
            try {
                done += duty.runOnce();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "duty " + duty.name() + " failed; trying again next interval", e);
            }
        }
        return done;
    }

    @Override
    public void close() {
        running = false;
        if (loop != null) {
            loop.interrupt();
        }
    }
}
