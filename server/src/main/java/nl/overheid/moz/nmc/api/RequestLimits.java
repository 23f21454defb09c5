package nl.overheid.moz.nmc.api;

import io.helidon.config.Config;
import io.helidon.http.Method;
import io.helidon.webserver.http.ServerRequest;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.observe.NmcMetrics;
import nl.overheid.moz.nmc.ratelimit.DvCalls;
import nl.overheid.moz.nmc.register.Dienstverlener;

/**
 * What a DV may ask of the NMC at once and per second, so that no DV can exhaust the service for the others
 * (ARCHITECTURE §4, "Limits"). {@link ApiFilter} admits every DV call here as soon as the caller is known, before
 * its body is read: a call over a limit is a 429 problem with {@code Retry-After} and costs neither memory nor the
 * database's time.
 *
 * <ul>
 *   <li>Concurrency, per instance: at most {@code http.max-concurrent-requests} DV calls at once on this instance,
 *       {@code http.max-concurrent-requests-per-dv} of one DV; bulk calls, whose bodies (up to
 *       {@code http.max-bulk-body-bytes}, parsed into a tree) are what fills the heap, also at most
 *       {@code http.max-concurrent-bulk-requests} at once and {@code http.max-concurrent-bulk-requests-per-dv} of
 *       one DV. In memory: a count over all instances would cost a round trip per call, and what runs out is each
 *       instance's own heap and threads.</li>
 *   <li>Rate, over all instances ({@link DvCalls}, counters in the database): the feed and webhook calls at
 *       {@code feed.rate-limit-per-second}, status, search and cancel at {@code http.rate-limit-per-second}, bulk
 *       calls at {@code http.bulk-rate-limit-per-second}. Acceptance is limited by the DV's acceptance quota, as
 *       shared and exact, which a bulk call consults before its body is read; but a repeat counts against no quota,
 *       so without its own rate a DV could send the same maximal bulk call again and again, each costing the
 *       parsing, validation and look-up of its items (benchmark {@code flood}). A single acceptance that stored
 *       nothing (a repeat, or a body refused) is counted after its answer, at
 *       {@code http.repeat-rate-limit-per-second}: a DV over it has its single acceptances refused before their
 *       bodies are read for the rest of the second, and one that stores a new notification costs no count.</li>
 *   <li>Refusals, these limits' and the quota's, are answered after {@code http.refusal-delay} (at most
 *       {@code http.max-delayed-refusals} held at once, the rest at once). A client that honours
 *       {@code Retry-After} loses nothing by it; one that sends again the moment it is refused (a flood, benchmark
 *       {@code flood}) would otherwise turn every refusal into a new call, as fast as the NMC can refuse, and take
 *       the cores from the other DVs' calls. A held refusal has given
 *       its permits back and waits on a virtual thread, without CPU, a database connection or the body.</li>
 *   <li>An admitted bulk call is paced while other DVs' other calls are in progress on the instance ({@link Pace}): its
 *       work is then at most {@code http.bulk-share} of its time, so one DV's bulk calls cannot take a core the
 *       others' calls need.</li>
 * </ul>
 */
public final class RequestLimits {

    /**
     * The limits ({@code http.*}).
     *
     * @param concurrentRequests      DV calls at once on one instance
     * @param concurrentRequestsPerDv one DV's calls at once on one instance
     * @param concurrentBulk          bulk calls at once on one instance
     * @param concurrentBulkPerDv     one DV's bulk calls at once on one instance
     * @param perSecond               one DV's status, search and cancel calls per second, all instances together
     * @param bulkPerSecond           one DV's bulk calls per second, all instances together
     * @param repeatPerSecond         one DV's single acceptances that stored nothing per second, all instances
     *                                together
     * @param refusalDelay            how long a refused call waits for its 429 (zero: none)
     * @param maxDelayedRefusals      refused calls held at once on one instance; more are answered at once
     * @param bulkShare               the share of its time a bulk call works while other DVs' calls are in progress
     *                                on the instance (1: never paced)
     */
    public record Settings(
            int concurrentRequests,
            int concurrentRequestsPerDv,
            int concurrentBulk,
            int concurrentBulkPerDv,
            int perSecond,
            int bulkPerSecond,
            int repeatPerSecond,
            Duration refusalDelay,
            int maxDelayedRefusals,
            double bulkShare) {

        public Settings {
            if (concurrentRequestsPerDv < 1
                    || concurrentRequests < concurrentRequestsPerDv
                    || concurrentBulkPerDv < 1
                    || concurrentBulk < concurrentBulkPerDv
                    || concurrentBulkPerDv > concurrentRequestsPerDv
                    || perSecond < 1
                    || bulkPerSecond < 1
                    || repeatPerSecond < 1) {
                throw new IllegalArgumentException("http.max-concurrent-requests(-per-dv) and "
                        + "http.max-concurrent-bulk-requests(-per-dv) must be positive, each per-DV limit at most its "
                        + "instance's, the bulk limits at most the others, and http.rate-limit-per-second, "
                        + "http.bulk-rate-limit-per-second and http.repeat-rate-limit-per-second positive");
            }
            // a refusal promises a retry after one second at the soonest (Retry-After is in whole seconds)
            if (refusalDelay.isNegative()
                    || refusalDelay.compareTo(Duration.ofSeconds(1)) > 0
                    || maxDelayedRefusals < 0) {
                throw new IllegalArgumentException(
                        "http.refusal-delay must be 0 to PT1S and http.max-delayed-refusals 0 or more");
            }
            if (!(bulkShare >= 0.1 && bulkShare <= 1)) {
                throw new IllegalArgumentException("http.bulk-share must be 0.1 to 1");
            }
        }

        public static Settings from(Config http) {
            return new Settings(
                    http.get("max-concurrent-requests").asInt().orElse(64),
                    http.get("max-concurrent-requests-per-dv").asInt().orElse(16),
                    http.get("max-concurrent-bulk-requests").asInt().orElse(4),
                    http.get("max-concurrent-bulk-requests-per-dv").asInt().orElse(1),
                    http.get("rate-limit-per-second").asInt().orElse(50),
                    http.get("bulk-rate-limit-per-second").asInt().orElse(1),
                    http.get("repeat-rate-limit-per-second").asInt().orElse(50),
                    http.get("refusal-delay").as(Duration.class).orElse(Duration.ofSeconds(1)),
                    http.get("max-delayed-refusals").asInt().orElse(256),
                    http.get("bulk-share").asDouble().orElse(0.5));
        }
    }

    /** What a DV call is, for its limits. */
    enum Kind {
        ACCEPTANCE,
        BULK,
        FEED,
        NOTIFICATIES
    }

    /**
     * An admitted call's hold on the concurrency limits, given back once: when its answer is sent, or before its
     * refusal is held. In the request's context, where {@link #heldRefusal} finds it.
     */
    static final class Permit implements AutoCloseable {
        private final Semaphore[] held;
        private final UUID dvId;
        private final Kind kind;
        private final java.util.concurrent.atomic.AtomicBoolean open =
                new java.util.concurrent.atomic.AtomicBoolean(true);

        private Permit(Semaphore[] held, UUID dvId, Kind kind) {
            this.held = held;
            this.dvId = dvId;
            this.kind = kind;
        }

        @Override
        public void close() {
            if (open.compareAndSet(true, false)) {
                release(held, held.length);
            }
        }
    }

    /**
     * Registered in a single acceptance's context when it stored a new notification ({@link #stored}); one without
     * it stored nothing and is counted at {@code http.repeat-rate-limit-per-second} ({@link #answered}).
     */
    private static final class Stored {}

    private static final Stored STORED = new Stored();

    private static final Logger LOG = Logger.getLogger(RequestLimits.class.getName());

    /** A pause of a bulk call is never longer than this, whatever its step took. */
    static final long MAX_PAUSE_MILLIS = 100;

    private final Settings settings;
    private final NmcMetrics metrics;
    private final DvCalls calls;
    private final Semaphore all;
    private final Semaphore bulk;
    private final Semaphore delayed;
    private final Map<UUID, Semaphore> allPerDv = new ConcurrentHashMap<>();
    private final Map<UUID, Semaphore> bulkPerDv = new ConcurrentHashMap<>();

    public RequestLimits(Settings settings, DvCalls calls, NmcMetrics metrics) {
        this.settings = settings;
        this.metrics = metrics;
        this.calls = calls;
        this.all = new Semaphore(settings.concurrentRequests());
        this.bulk = new Semaphore(settings.concurrentBulk());
        this.delayed = new Semaphore(settings.maxDelayedRefusals());
        metrics.apiCallsInProgress("alle", () -> settings.concurrentRequests() - all.availablePermits());
        metrics.apiCallsInProgress("bulk", () -> settings.concurrentBulk() - bulk.availablePermits());
    }

    /** The kind of a DV call by its route's template under {@code basePath}. */
    static Kind kind(String basePath, String template, Method method) {
        String path = template.substring(basePath.length());
        if (path.endsWith("/notificaties/bulk")) {
            return Kind.BULK;
        }
        if (method == Method.POST
                && (path.equals("/decentraal/notificaties") || path.equals("/centraal/notificaties"))) {
            return Kind.ACCEPTANCE;
        }
        if (path.startsWith("/notificaties/wijzigingen") || path.startsWith("/webhook")) {
            return Kind.FEED;
        }
        return Kind.NOTIFICATIES;
    }

    /**
     * Admits a DV's call of this kind, or throws its 429 problem (nothing held then). The concurrency limits come
     * first: they cost nothing, while the rate limit takes a counter in the database.
     */
    Permit admit(Dienstverlener dv, Kind kind) {
        Semaphore dvAll = allPerDv.computeIfAbsent(dv.id(), id -> new Semaphore(settings.concurrentRequestsPerDv()));
        Semaphore dvBulk = kind == Kind.BULK
                ? bulkPerDv.computeIfAbsent(dv.id(), id -> new Semaphore(settings.concurrentBulkPerDv()))
                : null;
        Semaphore[] held =
                kind == Kind.BULK ? new Semaphore[] {dvAll, dvBulk, all, bulk} : new Semaphore[] {dvAll, all};
        int taken = 0;
        while (taken < held.length && held[taken].tryAcquire()) {
            taken++;
        }
        if (taken < held.length) {
            release(held, taken);
            // the DV's own limits are taken first: a DV over its own is told so, not that the NMC is busy
            throw delayed(ProblemException.tooManyConcurrent(taken < (kind == Kind.BULK ? 2 : 1)));
        }
        Permit permit = new Permit(held, dv.id(), kind);
        try {
            switch (kind) {
                case FEED -> limitRate(dv, DvCalls.Kind.FEED);
                case NOTIFICATIES -> limitRate(dv, DvCalls.Kind.NOTIFICATIES);
                case BULK -> limitRate(dv, DvCalls.Kind.BULK);
                // counted after its answer, and only when it stored nothing: here only whether the DV is over
                case ACCEPTANCE -> refuse(calls.over(dv.id(), DvCalls.Kind.REPEAT));
            }
        } catch (ProblemException refused) {
            permit.close();
            throw delayed(refused);
        } catch (RuntimeException e) {
            permit.close();
            throw e;
        }
        return permit;
    }

    /**
     * Paces one bulk call of a DV: {@link #run} after each step of its work (ten items checked, validated,
     * prepared or sealed; a chunk committed): short steps, so a call that comes in waits at most ten items' work
     * before the bulk call keeps to its share. While another DV's call other than a bulk call is in progress on this
     * instance (a single acceptance, a status or feed call: someone waits for its answer), it then waits so long that
     * the call's work is at most {@code http.bulk-share} of its time: at 0.5 as long as the step took (at most
     * {@value #MAX_PAUSE_MILLIS} ms). A maximal bulk call otherwise keeps a core busy for its whole length, and on an
     * instance of two cores that was the other DVs' single calls waiting for CPU (benchmark {@code flood}). Alone on
     * the instance a bulk call is never paced. Registered in the request's context by {@link ApiFilter}; one call's
     * pace is used by that call's thread only.
     */
    final class Pace implements Runnable {
        private final UUID dvId;
        private long stepStarted = System.nanoTime();

        private Pace(UUID dvId) {
            this.dvId = dvId;
        }

        @Override
        public void run() {
            long worked = System.nanoTime() - stepStarted;
            long pause = Math.min((long) (worked * (1 / settings.bulkShare() - 1)), MAX_PAUSE_MILLIS * 1_000_000);
            if (pause > 0 && othersInProgress(dvId)) {
                try {
                    Thread.sleep(Duration.ofNanos(pause));
                    metrics.bulkPaused(pause);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            stepStarted = System.nanoTime();
        }
    }

    Pace pace(Dienstverlener dv) {
        return new Pace(dv.id());
    }

    /**
     * Whether a call of another DV than {@code dvId}, other than a bulk call, is in progress on this instance: the
     * calls whose answer someone waits for at once. Two DVs' bulk calls are not paced for each other (that would leave
     * the cores idle).
     */
    private boolean othersInProgress(UUID dvId) {
        int calls = inUse(all, settings.concurrentRequests()) - inUse(bulk, settings.concurrentBulk());
        int mine = inUse(allPerDv.get(dvId), settings.concurrentRequestsPerDv())
                - inUse(bulkPerDv.get(dvId), settings.concurrentBulkPerDv());
        return calls > mine;
    }

    private static int inUse(Semaphore limit, int permits) {
        return limit == null ? 0 : permits - limit.availablePermits();
    }

    /**
     * A refusal of an admitted call (the DV's quota used up), held as the limits' own refusals are: its permits
     * are given back first, so a DV over its quota does not keep slots of the instance while it waits.
     */
    public ProblemException heldRefusal(ServerRequest request, ProblemException refusal) {
        request.context().get(Permit.class).ifPresent(Permit::close);
        return delayed(refusal);
    }

    /**
     * A refusal, once {@code http.refusal-delay} has passed; at once when {@code http.max-delayed-refusals} are
     * already waiting. Called with no permit held.
     */
    ProblemException delayed(ProblemException refusal) {
        if (settings.refusalDelay().isZero() || !delayed.tryAcquire()) {
            return refusal;
        }
        try {
            Thread.sleep(settings.refusalDelay());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            delayed.release();
        }
        return refusal;
    }

    /** Marks the single acceptance of this request as having stored a new notification. */
    public static void stored(ServerRequest request) {
        request.context().register(STORED);
    }

    /**
     * After an admitted call's answer (its permit given back): counts a single acceptance that stored nothing. Its
     * answer is sent or on its way, so a count that fails (the database unreachable) is only logged: that call went
     * uncounted.
     */
    void answered(Permit permit, io.helidon.common.context.Context context) {
        if (permit.kind != Kind.ACCEPTANCE || context.get(Stored.class).isPresent()) {
            return;
        }
        try {
            calls.take(permit.dvId, DvCalls.Kind.REPEAT);
        } catch (RuntimeException e) {
            LOG.warning(() -> "a single acceptance that stored nothing went uncounted: "
                    + e.getClass().getName());
        }
    }

    private void limitRate(Dienstverlener dv, DvCalls.Kind kind) {
        refuse(calls.take(dv.id(), kind));
    }

    private static void refuse(java.util.OptionalLong retryAfter) {
        retryAfter.ifPresent(seconds -> {
            throw ProblemException.rateLimited(seconds);
        });
    }

    private static void release(Semaphore[] held, int count) {
        for (int i = 0; i < count; i++) {
            held[i].release();
        }
    }
}
