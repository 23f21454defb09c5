package nl.overheid.moz.nmc.testing;

import nl.overheid.moz.nmc.Nmc;
import nl.overheid.moz.nmc.engine.TaskKind;
import nl.overheid.moz.nmc.engine.TaskWorker;

/**
 * Runs an NMC's engine by hand, as db-scheduler's {@code testhelper/ManualScheduler} does: start the NMC with
 * {@code engine.enabled: false} (as {@link TestNmc} does) and move time with a {@link MutableClock}; each call runs
 * one claim round of the real workers, or one round of the real duties, in the calling thread.
 */
public final class ManualRunner {

    private final Nmc.Engine engine;

    private ManualRunner(Nmc.Engine engine) {
        this.engine = engine;
    }

    public static ManualRunner of(Nmc nmc) {
        return new ManualRunner(nmc.engine());
    }

    /** One claim round of every worker; returns how many tasks they claimed. */
    public int runWorkersOnce() {
        return engine.workers().stream().mapToInt(TaskWorker::runOnce).sum();
    }

    /** One claim round of the worker of one kind (tests stage interleavings with it). */
    public int runWorkerOnce(TaskKind kind) {
        return engine.workers().stream()
                .filter(worker -> worker.kind() == kind)
                .mapToInt(TaskWorker::runOnce)
                .sum();
    }

    /** The periodic duties once (the control duty plans missing tasks); returns what they did. */
    public int runDutiesOnce() {
        return engine.duties().runAllOnce();
    }
}
