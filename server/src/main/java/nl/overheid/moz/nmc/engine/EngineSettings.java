package nl.overheid.moz.nmc.engine;

import io.helidon.config.Config;
import java.time.Duration;

/**
 * Settings of the task engine ({@code engine} subtree). Defaults are named constants; invalid values fail
 * at start-up, not at the first claim.
 *
 * @param pollInterval  how long an idle worker sleeps when not nudged
 * @param batchSize     tasks per claim round
 * @param parallelism   tasks of one kind executed at once (each holds a pool connection while in a transaction)
 * @param maxDvsPerRound DVs served per claim round
 * @param lease         how long a claim owns its batch; extended before each external call
 * @param backoffBase   first retry delay after a failure
 * @param backoffMax    cap of the retry delay
 * @param reconcileShare the share of every budget window reserved for reconciliation, at least one token a window
 *                       per key (the limits themselves are per budget key, given to {@link SendBudget} by the wiring)
 * @param controlInterval how often the control duty looks for live notifications without a task
 * @param shutdownGrace how long a stopping NMC waits for its running tasks to finish (claims stop at once and
 *                      tasks claimed but not started are released at once); keep it above NotifyNL's read timeout
 *                      so a call in flight can commit its answer
 */
public record EngineSettings(
        Duration pollInterval,
        int batchSize,
        int parallelism,
        int maxDvsPerRound,
        Duration lease,
        Duration backoffBase,
        Duration backoffMax,
        double reconcileShare,
        Duration controlInterval,
        Duration shutdownGrace) {

    public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(1);
    public static final int DEFAULT_BATCH_SIZE = 50;
    public static final int DEFAULT_PARALLELISM = 4;
    public static final int DEFAULT_MAX_DVS_PER_ROUND = 20;
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(60);
    public static final Duration DEFAULT_BACKOFF_BASE = Duration.ofSeconds(5);
    public static final Duration DEFAULT_BACKOFF_MAX = Duration.ofMinutes(15);
    public static final double DEFAULT_RECONCILE_SHARE = 0.1;
    public static final Duration DEFAULT_CONTROL_INTERVAL = Duration.ofMinutes(1);
    /** Above NotifyNL's default read timeout (15 s), below a container platform's usual 30 s before SIGKILL. */
    public static final Duration DEFAULT_SHUTDOWN_GRACE = Duration.ofSeconds(20);

    public EngineSettings {
        requirePositive(pollInterval, "engine.poll-interval");
        requirePositive(lease, "engine.lease");
        requirePositive(backoffBase, "engine.backoff-base");
        requirePositive(controlInterval, "engine.control-interval");
        if (shutdownGrace == null || shutdownGrace.isNegative()) {
            throw new IllegalArgumentException("engine.shutdown-grace must not be negative");
        }
        if (backoffMax.compareTo(backoffBase) < 0) {
            throw new IllegalArgumentException("engine.backoff-max must not be below engine.backoff-base");
        }
        if (batchSize < 1 || parallelism < 1 || maxDvsPerRound < 1) {
            throw new IllegalArgumentException("engine batch size, parallelism and DVs per round must be positive");
        }
        if (!(reconcileShare >= 0 && reconcileShare < 1)) {
            throw new IllegalArgumentException("engine.reconcile-share must be at least 0 and below 1");
        }
    }

    public static EngineSettings defaults() {
        return new EngineSettings(
                DEFAULT_POLL_INTERVAL,
                DEFAULT_BATCH_SIZE,
                DEFAULT_PARALLELISM,
                DEFAULT_MAX_DVS_PER_ROUND,
                DEFAULT_LEASE,
                DEFAULT_BACKOFF_BASE,
                DEFAULT_BACKOFF_MAX,
                DEFAULT_RECONCILE_SHARE,
                DEFAULT_CONTROL_INTERVAL,
                DEFAULT_SHUTDOWN_GRACE);
    }

    public static EngineSettings from(Config engine) {
        // One service's limit in the engine's subtree would silently apply to every service: refuse the old keys.
        for (String moved : new String[] {"notify-service", "notify-per-minute"}) {
            if (engine.get(moved).exists()) {
                throw new IllegalArgumentException("engine." + moved + " is no longer read: each NotifyNL service has "
                        + "its own budget, notifynl.services.<name>.per-minute (and api-key)");
            }
        }
        EngineSettings d = defaults();
        return new EngineSettings(
                engine.get("poll-interval").as(Duration.class).orElse(d.pollInterval()),
                engine.get("batch-size").asInt().orElse(d.batchSize()),
                engine.get("parallelism").asInt().orElse(d.parallelism()),
                engine.get("max-dvs-per-round").asInt().orElse(d.maxDvsPerRound()),
                engine.get("lease").as(Duration.class).orElse(d.lease()),
                engine.get("backoff-base").as(Duration.class).orElse(d.backoffBase()),
                engine.get("backoff-max").as(Duration.class).orElse(d.backoffMax()),
                engine.get("reconcile-share").asDouble().orElse(d.reconcileShare()),
                engine.get("control-interval").as(Duration.class).orElse(d.controlInterval()),
                engine.get("shutdown-grace").as(Duration.class).orElse(d.shutdownGrace()));
    }

    /** Exponential backoff after {@code failures} failed tries: base, 2 × base, 4 × base, …, capped at max. */
    public Duration backoff(int failures) {
        return backoff(failures, backoffMax);
    }

    /** The same doubling from the base, capped at {@code cap} instead (a kind that waits longer than most). */
    public Duration backoff(int failures, Duration cap) {
        long factor = 1L << Math.min(Math.max(failures - 1, 0), 20);
        Duration delay = backoffBase.multipliedBy(factor);
        return delay.compareTo(cap) > 0 ? cap : delay;
    }

    private static void requirePositive(Duration duration, String key) {
        if (duration == null || duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException(key + " must be positive");
        }
    }

    public EngineSettings withPollInterval(Duration pollInterval) {
        return new EngineSettings(
                pollInterval,
                batchSize,
                parallelism,
                maxDvsPerRound,
                lease,
                backoffBase,
                backoffMax,
                reconcileShare,
                controlInterval,
                shutdownGrace);
    }

    public EngineSettings withBatchSize(int batchSize) {
        return new EngineSettings(
                pollInterval,
                batchSize,
                parallelism,
                maxDvsPerRound,
                lease,
                backoffBase,
                backoffMax,
                reconcileShare,
                controlInterval,
                shutdownGrace);
    }

    public EngineSettings withParallelism(int parallelism) {
        return new EngineSettings(
                pollInterval,
                batchSize,
                parallelism,
                maxDvsPerRound,
                lease,
                backoffBase,
                backoffMax,
                reconcileShare,
                controlInterval,
                shutdownGrace);
    }

    public EngineSettings withMaxDvsPerRound(int maxDvsPerRound) {
        return new EngineSettings(
                pollInterval,
                batchSize,
                parallelism,
                maxDvsPerRound,
                lease,
                backoffBase,
                backoffMax,
                reconcileShare,
                controlInterval,
                shutdownGrace);
    }

    public EngineSettings withLease(Duration lease) {
        return new EngineSettings(
                pollInterval,
                batchSize,
                parallelism,
                maxDvsPerRound,
                lease,
                backoffBase,
                backoffMax,
                reconcileShare,
                controlInterval,
                shutdownGrace);
    }

    public EngineSettings withBackoffBase(Duration backoffBase) {
        return new EngineSettings(
                pollInterval,
                batchSize,
                parallelism,
                maxDvsPerRound,
                lease,
                backoffBase,
                backoffMax,
                reconcileShare,
                controlInterval,
                shutdownGrace);
    }

    public EngineSettings withBackoffMax(Duration backoffMax) {
        return new EngineSettings(
                pollInterval,
                batchSize,
                parallelism,
                maxDvsPerRound,
                lease,
                backoffBase,
                backoffMax,
                reconcileShare,
                controlInterval,
                shutdownGrace);
    }

    public EngineSettings withReconcileShare(double reconcileShare) {
        return new EngineSettings(
                pollInterval,
                batchSize,
                parallelism,
                maxDvsPerRound,
                lease,
                backoffBase,
                backoffMax,
                reconcileShare,
                controlInterval,
                shutdownGrace);
    }

    public EngineSettings withControlInterval(Duration controlInterval) {
        return new EngineSettings(
                pollInterval,
                batchSize,
                parallelism,
                maxDvsPerRound,
                lease,
                backoffBase,
                backoffMax,
                reconcileShare,
                controlInterval,
                shutdownGrace);
    }

    public EngineSettings withShutdownGrace(Duration shutdownGrace) {
        return new EngineSettings(
                pollInterval,
                batchSize,
                parallelism,
                maxDvsPerRound,
                lease,
                backoffBase,
                backoffMax,
                reconcileShare,
                controlInterval,
                shutdownGrace);
    }
}
