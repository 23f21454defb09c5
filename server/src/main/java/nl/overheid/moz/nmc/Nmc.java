package nl.overheid.moz.nmc;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.helidon.config.Config;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.engine.DutyRunner;
import nl.overheid.moz.nmc.engine.TaskWorker;
import nl.overheid.moz.nmc.feed.StatusEvents;
import nl.overheid.moz.nmc.retention.PepperCompromises;
import nl.overheid.moz.nmc.trace.Tracing;
import nl.overheid.moz.nmc.trace.TracingSettings;

/**
 * The running NMC: one database, the HTTP edge, the task workers and the periodic duties, wired by hand through
 * constructors in four factories that each return a small record — {@link Core} (register, lifecycle, task engine),
 * {@link Keys} (design §9), {@link Steps} (the six steps: workers and request handling), {@link Duties} — and the
 * {@link HttpEdge}. {@link #start} is what {@code Main} and the tests call, so tests run the real assembly; a test
 * that drives the engine itself starts it with {@code engine.enabled: false} and runs rounds through
 * {@link #engine()} (the test side's {@code ManualRunner}).
 */
public final class Nmc implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(Nmc.class.getName());
    /** After the grace period, how long interrupted tasks get to end before the pool closes under them. */
    private static final Duration ABANDON_SETTLE = Duration.ofSeconds(1);

    /** The engine's moving parts: one worker per task kind and the runner of the periodic duties. */
    public record Engine(List<TaskWorker> workers, DutyRunner duties) {}

    private final Core core;
    private final Keys keys;
    private final Engine engine;
    private final HttpEdge edge;
    private final Parties parties;
    private boolean closed;

    private Nmc(Core core, Keys keys, Engine engine, HttpEdge edge, Parties parties) {
        this.core = core;
        this.keys = keys;
        this.engine = engine;
        this.edge = edge;
        this.parties = parties;
    }

    /**
     * The NMC's one JSON mapper: ISO times, no nulls, CloudEvents in the SDK's structured JSON; unknown input
     * fields are ignored after schema validation.
     */
    public static ObjectMapper objectMapper() {
        return new ObjectMapper()
                .registerModule(new JavaTimeModule())
                .registerModule(StatusEvents.jacksonModule())
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .setSerializationInclusion(JsonInclude.Include.NON_NULL);
    }

    /**
     * The NMC's clock: UTC, ticking in microseconds (PostgreSQL's precision), so that an instant read back from
     * the database equals the one written. A finer clock makes "is it due yet" comparisons flip on rounding.
     */
    public static Clock systemClock() {
        return Clock.tick(Clock.systemUTC(), Duration.ofNanos(1_000));
    }

    /** Starts with the real clients of NotifyNL and the Profielservice, and the processing log's store. */
    public static Nmc start(Config config, Clock clock) {
        return start(config, clock, Parties.from(config, clock));
    }

    /**
     * Starts everything: reads every setting, migrates or validates the schema, seeds the register, starts the
     * server and, unless {@code engine.enabled} is false, the workers and duties.
     */
    public static Nmc start(Config config, Clock clock, Parties parties) {
        StartGuard.check(config);
        Settings settings = Settings.from(config);
        // read before anything opens, so a wrong setting stops the start at once; off unless an endpoint is set
        Tracing tracing = Tracing.of(TracingSettings.from(config.get("tracing")));
        Database database = Database.open(settings.db());
        try {
            prepareSchema(database, settings.db().schemaMode());
            StartGuard.checkLogin(config, database, settings.db().schemaMode());
            Core core = Core.create(config, settings, database, clock, tracing);
            Keys keys = Keys.create(config, core);
            Steps steps = Steps.create(core, keys, parties);
            Duties duties = Duties.create(config, core, keys, steps);
            HttpEdge edge = HttpEdge.start(config, core, keys, steps);
            Engine engine = new Engine(steps.workers(), duties.runner());
            if (settings.engineEnabled()) {
                engine.workers().forEach(TaskWorker::start);
                engine.duties().start();
            }
            LOG.info(() -> "NMC listening on port " + edge.port() + ", /observe on port " + edge.managementPort()
                    + (settings.engineEnabled() ? "" : " (engine.enabled: false: no workers, no duties)"));
            return new Nmc(core, keys, engine, edge, parties);
        } catch (RuntimeException e) {
            database.close();
            parties.ldv().close();
            tracing.close();
            throw e;
        }
    }

    private static void prepareSchema(Database database, String mode) {
        if (mode.equals("migrate")) {
            database.migrate();
            return;
        }
        try {
            database.validate();
        } catch (org.flywaydb.core.api.FlywayException e) {
            throw new IllegalStateException(
                    "db.schema validate: the database schema does not match the shipped"
                            + " migrations; apply them with the migration step first",
                    e);
        }
    }

    public int port() {
        return edge.port();
    }

    /** The database (its pool), for tests and tools that must see or hold what the NMC holds. */
    public nl.overheid.moz.nmc.db.Database database() {
        return core.database();
    }

    /** The port of the observe endpoints (health, metrics), apart from the API's. */
    public int managementPort() {
        return edge.managementPort();
    }

    /** The workers and the duty runner, for whoever runs them by hand (an instance with {@code engine.enabled: false}). */
    public Engine engine() {
        return engine;
    }

    /** The operator's action on peppers (marking a version compromised). */
    public PepperCompromises pepperCompromises() {
        return keys.pepperCompromises();
    }

    /**
     * Stops gracefully (also on SIGTERM, through {@code Main}'s shutdown hook): claims stop at once and claimed
     * tasks that have not started are released for another instance; running tasks and a running duty round
     * may finish and commit within {@code engine.shutdown-grace}; what still runs then is interrupted and left to
     * its lease, as after a crash. Only then the web server stops (receipts and requests are still taken
     * meanwhile) and the pool closes.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        Duration grace = core.settings().engine().shutdownGrace();
        long deadline = System.nanoTime() + grace.toNanos();
        List<TaskWorker> workers = engine.workers();
        workers.forEach(TaskWorker::stopClaiming);
        engine.duties().close(deadline);
        List<TaskWorker> late = workers.stream()
                .filter(worker -> !worker.awaitDrained(deadline))
                .toList();
        late.forEach(worker -> worker.abandon(ABANDON_SETTLE));
        int released = workers.stream().mapToInt(TaskWorker::released).sum();
        LOG.info(() -> "NMC stopping: " + released + " claimed task(s) released unstarted; "
                + (late.isEmpty()
                        ? "every running task finished"
                        : "tasks of "
                                + late.stream()
                                        .map(worker -> worker.kind().dbValue())
                                        .toList() + " still ran after " + grace
                                + " and are left to their leases"));
        edge.stop();
        parties.ldv().close();
        // the spans of the last requests and runs are still sent (the batch processor flushes on close)
        core.tracing().close();
        core.metrics().close();
        core.database().close();
    }
}
