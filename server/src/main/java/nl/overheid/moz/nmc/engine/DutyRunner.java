package nl.overheid.moz.nmc.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Runs the {@link Duty duties}, each on its own virtual thread and its own schedule, every interval: one slow or
 * stuck duty never delays the others. Every round of a duty runs under a deadline; a round that outlives it is
 * interrupted and reported, and the duty's next round waits until that one has ended (a duty never runs twice at
 * once in one process). A failing duty is logged and tried again at the next interval.
 */
public final class DutyRunner implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(DutyRunner.class.getName());

    private final List<Duty> duties;
    private final Duration interval;
    private final Duration deadline;
    private final EngineEvents events;
    private volatile boolean running;
    /** Counted down on close: ends the wait between rounds, never a round itself. */
    private final CountDownLatch stop = new CountDownLatch(1);

    private final List<Thread> loops = new ArrayList<>();

    public DutyRunner(List<Duty> duties, Duration interval) {
        this(duties, interval, interval, EngineEvents.NONE);
    }

    /** {@code deadline}: how long one round of a duty may take before it is interrupted. */
    public DutyRunner(List<Duty> duties, Duration interval, Duration deadline, EngineEvents events) {
        if (interval.isNegative() || interval.isZero() || deadline.isNegative() || deadline.isZero()) {
            throw new IllegalArgumentException("duty interval and deadline must be positive");
        }
        this.duties = List.copyOf(duties);
        this.interval = interval;
        this.deadline = deadline;
        this.events = events;
    }

    public synchronized void start() {
        running = true;
        for (Duty duty : duties) {
            loops.add(Thread.ofVirtual().name("nmc-duty-" + duty.name()).start(() -> loop(duty)));
        }
    }

    private void loop(Duty duty) {
        Thread round = null;
        while (running) {
            try {
                if (stop.await(interval.toMillis(), TimeUnit.MILLISECONDS)) {
                    return;
                }
            } catch (InterruptedException e) {
                return;
            }
            if (round != null && round.isAlive()) {
                continue; // the last round still winds down after its interrupt: no second one beside it
            }
            round = runWithDeadline(duty);
        }
    }

    /** One round of {@code duty} on a thread of its own, waited for until the deadline; returns that thread. */
    private Thread runWithDeadline(Duty duty) {
        long started = System.nanoTime();
        boolean[] completed = {false};
        Thread round = Thread.ofVirtual().name("nmc-duty-round-" + duty.name()).start(() -> {
            completed[0] = runOnce(duty) >= 0;
        });
        boolean overran = true;
        try {
            overran = !round.join(deadline);
            if (overran) {
                round.interrupt();
                LOG.warning(() -> "duty " + duty.name() + " still ran after its deadline of " + deadline
                        + "; interrupted, the other duties went on");
            }
        } catch (InterruptedException e) {
            round.interrupt();
            Thread.currentThread().interrupt();
        }
        // completed[0] is read only after the join returned true, which orders it after the round's write
        events.dutyRan(duty.name(), Duration.ofNanos(System.nanoTime() - started), !overran && completed[0]);
        return round;
    }

    /** One round of one duty; -1 when it failed. */
    private static int runOnce(Duty duty) {
        try {
            return duty.runOnce();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "duty " + duty.name() + " failed; trying again next interval", e);
            return -1;
        }
    }

    /** Runs every duty once now, one after another in the calling thread; returns the total they did. */
    public int runAllOnce() {
        int done = 0;
        for (Duty duty : duties) {
            done += Math.max(0, runOnce(duty));
        }
        return done;
    }

    /**
     * Stops: no round starts any more; rounds that run may finish their transactions until {@code deadline}
     * ({@link System#nanoTime()}), after which they are interrupted.
     */
    public void close(long deadline) {
        running = false;
        stop.countDown();
        for (Thread loop : loops) {
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
