package nl.overheid.moz.nmc.observe;

import io.helidon.health.HealthCheck;
import io.helidon.health.HealthCheckResponse;
import io.helidon.health.HealthCheckType;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.privacy.Envelope;
import nl.overheid.moz.nmc.privacy.Peppers;

/**
 * The readiness of an instance ({@code /observe/health/ready}): down while the database does not answer within
 * {@code timeout}, while the schema does not validate against the shipped migrations (checked at most every
 * {@code schemaInterval}, since a validation reads the whole history), or while a key is missing: no KEK for the
 * current version, or a pepper purpose whose every version is compromised. Liveness
 * ({@code /observe/health/live}) has no check of the NMC's own: a database outage is not cured by a restart.
 * Each check answers within {@code timeout}, whatever the database does, on a connection of its own (never one of
 * the pool the API and the workers share, so a probe neither waits for nor takes one of theirs), and a result is
 * reused for {@code cacheTtl}: probes in a burst cost the database one check, and a probe arriving while one runs
 * gets the last result instead of a second check.
 */
public final class Readiness {

    private static final Logger LOG = Logger.getLogger(Readiness.class.getName());

    private final Database database;
    private final Envelope envelope;
    private final Map<String, Peppers> peppers;
    private final Clock clock;
    private final Duration timeout;
    private final Duration schemaInterval;
    private final Duration cacheTtl;
    private volatile Instant schemaCheckedAt = Instant.MIN;
    private volatile String schemaProblem = "not checked yet";

    public Readiness(
            Database database,
            Envelope envelope,
            Map<String, Peppers> peppers,
            Clock clock,
            Duration timeout,
            Duration schemaInterval,
            Duration cacheTtl) {
        this.database = database;
        this.cacheTtl = cacheTtl;
        this.envelope = envelope;
        this.peppers = Map.copyOf(peppers);
        this.clock = clock;
        this.timeout = timeout;
        this.schemaInterval = schemaInterval;
    }

    /** The readiness checks, for Helidon's health observer. */
    public List<HealthCheck> checks() {
        return List.of(
                check("database", new Cached(this::database)),
                check("schema", new Cached(this::schema)),
                check("keys", this::keys));
    }

    /** null when the database answers, else why not. */
    private String database() {
        return bounded(() -> {
            try (var connection = database.healthConnection()) {
                return connection.isValid((int) Math.max(1, timeout.toSeconds())) ? null : "no valid connection";
            } catch (Exception e) {
                return "unreachable (" + e.getClass().getSimpleName() + ")";
            }
        });
    }

    /** null when the schema validated within the interval (validated again when older), else why not. */
    private String schema() {
        Instant now = clock.instant();
        if (schemaProblem != null || schemaCheckedAt.plus(schemaInterval).isBefore(now)) {
            String problem = bounded(() -> {
                try {
                    database.validateForHealth();
                    return null;
                } catch (RuntimeException e) {
                    return "does not validate (" + e.getClass().getSimpleName() + ")";
                }
            });
            if (problem != null && schemaProblem == null) {
                LOG.warning("readiness: the schema " + problem);
            }
            schemaProblem = problem;
            schemaCheckedAt = now;
        }
        return schemaProblem;
    }

    /** null when the current KEK and a usable version of every pepper are there, else which is missing. */
    private String keys() {
        try {
            if (!envelope.kekVersions().contains(envelope.currentKekVersion())) {
                return "no KEK for the current version";
            }
        } catch (RuntimeException e) {
            return "KEK unavailable (" + e.getClass().getSimpleName() + ")";
        }
        for (Map.Entry<String, Peppers> pepper : peppers.entrySet()) {
            try {
                pepper.getValue().currentVersion();
            } catch (RuntimeException e) {
                return "no usable version of " + pepper.getKey();
            }
        }
        return null;
    }

    /** A check's last result, reused for {@code cacheTtl}; while one check runs, others get the last result. */
    private final class Cached implements Supplier<String> {
        private final Supplier<String> check;
        private final java.util.concurrent.locks.ReentrantLock running = new java.util.concurrent.locks.ReentrantLock();
        /** System.nanoTime of the last result (real time: the cache is the probes' matter, not the domain's). */
        private volatile long at;

        private volatile boolean checked;
        private volatile String last = "not checked yet";

        Cached(Supplier<String> check) {
            this.check = check;
        }

        @Override
        public String get() {
            long now = System.nanoTime();
            if ((checked && now - at < cacheTtl.toNanos()) || !running.tryLock()) {
                return last;
            }
            try {
                last = check.get();
                at = now;
                checked = true;
                return last;
            } finally {
                running.unlock();
            }
        }
    }

    private String bounded(Supplier<String> check) {
        try {
            return CompletableFuture.supplyAsync(
                            check, task -> Thread.ofVirtual().start(task))
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            return "no answer within " + timeout;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        } catch (java.util.concurrent.ExecutionException e) {
            return "failed (" + e.getCause().getClass().getSimpleName() + ")";
        }
    }

    private static HealthCheck check(String name, Supplier<String> problem) {
        return new HealthCheck() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public HealthCheckType type() {
                return HealthCheckType.READINESS;
            }

            @Override
            public HealthCheckResponse call() {
                String why = problem.get();
                HealthCheckResponse.Builder response =
                        HealthCheckResponse.builder().status(why == null);
                if (why != null) {
                    response.detail("reason", why);
                }
                return response.build();
            }
        };
    }
}
