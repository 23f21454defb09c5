package nl.overheid.moz.nmc.engine;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Wake-ups for idle workers: whoever plans due work of a kind (an acceptance, a stored receipt) nudges that
 * kind, so the happy path is quick without a tight poll. A nudge is only a hint; without one a worker polls
 * on its interval. In-process only: another instance finds the work on its next poll.
 */
public final class WorkSignals {

    private final Map<TaskKind, BlockingQueue<Boolean>> signals = new EnumMap<>(TaskKind.class);

    public WorkSignals() {
        for (TaskKind kind : TaskKind.values()) {
            signals.put(kind, new ArrayBlockingQueue<>(1));
        }
    }

    /** New work of this kind may be due. */
    public void nudge(TaskKind kind) {
        signals.get(kind).offer(Boolean.TRUE);
    }

    public void nudgeAll() {
        signals.keySet().forEach(this::nudge);
    }

    /** Waits until nudged or {@code timeout} passed. */
    void await(TaskKind kind, Duration timeout) throws InterruptedException {
        signals.get(kind).poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }
}
