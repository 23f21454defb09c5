package nl.overheid.moz.nmc.engine;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
    /** Counted down on close: ends the wait between rounds, never a round itself. */
    private final CountDownLatch stop = new CountDownLatch(1);

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
                    if (stop.await(interval.toMillis(), TimeUnit.MILLISECONDS)) {
                        return;
                    }
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

    /**
     * Stops: no round starts any more; a round that runs may finish its transactions until {@code deadline}
     * ({@link System#nanoTime()}), after which it is interrupted.
     */
    public void close(long deadline) {
        running = false;
        stop.countDown();
        if (loop != null) {
            try {
                if (!loop.join(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())))) {
                    loop.interrupt();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void close() {
        close(System.nanoTime());
    }
}
