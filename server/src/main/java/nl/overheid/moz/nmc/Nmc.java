package nl.overheid.moz.nmc;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.helidon.config.Config;
import io.helidon.health.HealthCheck;
import io.helidon.http.DirectHandler;
import io.helidon.http.HttpException;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.observe.ObserveFeature;
import io.helidon.webserver.observe.health.HealthObserver;
import io.helidon.webserver.observe.metrics.MetricsObserver;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.acceptance.Acceptance;
import nl.overheid.moz.nmc.acceptance.AcceptanceQuota;
import nl.overheid.moz.nmc.acceptance.AcceptanceRefused;
import nl.overheid.moz.nmc.acceptance.Cancellation;
import nl.overheid.moz.nmc.acceptance.CancelRefused;
import nl.overheid.moz.nmc.api.ApiDocuments;
import nl.overheid.moz.nmc.api.ApiFilter;
import nl.overheid.moz.nmc.api.ApiRoutes;
import nl.overheid.moz.nmc.api.OperatorAuditResource;
import nl.overheid.moz.nmc.api.OperatorDocumentationResource;
import nl.overheid.moz.nmc.api.OperatorNotificatiesResource;
import nl.overheid.moz.nmc.api.OperatorRegisterResource;
import nl.overheid.moz.nmc.api.OperatorKeysResource;
import nl.overheid.moz.nmc.api.OperatorTasksResource;
import nl.overheid.moz.nmc.api.OperatorAuthenticator;
import nl.overheid.moz.nmc.api.TokenVerifier;
import nl.overheid.moz.nmc.operator.OperatorActions;
import nl.overheid.moz.nmc.operator.OperatorAudit;
import nl.overheid.moz.nmc.operator.BeheerRefused;
import nl.overheid.moz.nmc.api.DocumentationResource;
import nl.overheid.moz.nmc.api.DomainProblems;
import nl.overheid.moz.nmc.api.DvAuthenticator;
import nl.overheid.moz.nmc.api.JsonBodies;
import nl.overheid.moz.nmc.api.JwksSource;
import nl.overheid.moz.nmc.api.NotificatiesResource;
import nl.overheid.moz.nmc.api.NotifyNlCallbackResource;
import nl.overheid.moz.nmc.api.ProblemException;
import nl.overheid.moz.nmc.api.ProblemResponses;
import nl.overheid.moz.nmc.api.Responses;
import nl.overheid.moz.nmc.api.SecurityHeaders;
import nl.overheid.moz.nmc.api.KeysResource;
import nl.overheid.moz.nmc.api.WebhookResource;
import nl.overheid.moz.nmc.api.FeedResource;
import nl.overheid.moz.nmc.control.ControlDuty;
import nl.overheid.moz.nmc.control.OperationalGauges;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.db.SqlStates;
import nl.overheid.moz.nmc.db.DatabaseSettings;
import nl.overheid.moz.nmc.engine.DutyRunner;
import nl.overheid.moz.nmc.engine.EngineEvents;
import nl.overheid.moz.nmc.engine.EngineSettings;
import nl.overheid.moz.nmc.engine.OwnedTasks;
import nl.overheid.moz.nmc.engine.SendBudget;
import nl.overheid.moz.nmc.engine.SendBudgetUpkeep;
import nl.overheid.moz.nmc.engine.TaskKind;
import nl.overheid.moz.nmc.engine.TaskRepository;
import nl.overheid.moz.nmc.engine.TaskWorker;
import nl.overheid.moz.nmc.engine.UnusedTokens;
import nl.overheid.moz.nmc.engine.WorkSignals;
import nl.overheid.moz.nmc.feed.CursorCodec;
import nl.overheid.moz.nmc.feed.CursorRefused;
import nl.overheid.moz.nmc.feed.EventRepository;
import nl.overheid.moz.nmc.feed.Feed;
import nl.overheid.moz.nmc.feed.FeedCalls;
import nl.overheid.moz.nmc.feed.FeedSettings;
import nl.overheid.moz.nmc.feed.UnacknowledgedReports;
import nl.overheid.moz.nmc.feed.StatusEvents;
import nl.overheid.moz.nmc.ldv.DataSubjects;
import nl.overheid.moz.nmc.lifecycle.NotificatieRepository;
import nl.overheid.moz.nmc.lifecycle.PogingRepository;
import nl.overheid.moz.nmc.lifecycle.Transitions;
import nl.overheid.moz.nmc.maintenance.EventPartitions;
import nl.overheid.moz.nmc.maintenance.EventRetention;
import nl.overheid.moz.nmc.webhook.SigningKeys;
import nl.overheid.moz.nmc.webhook.WebhookClient;
import nl.overheid.moz.nmc.webhook.WebhookDelivery;
import nl.overheid.moz.nmc.webhook.WebhookPositions;
import nl.overheid.moz.nmc.webhook.WebhookSettings;
import nl.overheid.moz.nmc.webhook.WebhookTargets;
import nl.overheid.moz.nmc.webhook.Webhooks;
import nl.overheid.moz.nmc.observe.NmcMetrics;
import nl.overheid.moz.nmc.observe.Readiness;
import nl.overheid.moz.nmc.planning.NotificatieTasks;
import nl.overheid.moz.nmc.privacy.Envelope;
import nl.overheid.moz.nmc.privacy.ConfiguredKeks;
import nl.overheid.moz.nmc.privacy.KekProvider;
import nl.overheid.moz.nmc.retention.Erasure;
import nl.overheid.moz.nmc.retention.KeyRewrap;
import nl.overheid.moz.nmc.retention.NotificatieRetention;
import nl.overheid.moz.nmc.retention.PepperCompromises;
import nl.overheid.moz.nmc.retention.RetentionSettings;
import nl.overheid.moz.nmc.privacy.Peppers;
import nl.overheid.moz.nmc.profiel.ProfielserviceSettings;
import nl.overheid.moz.nmc.receipts.CallbackTokens;
import nl.overheid.moz.nmc.receipts.Finaliser;
import nl.overheid.moz.nmc.receipts.ReceiptRepository;
import nl.overheid.moz.nmc.receipts.ReceiptProcessor;
import nl.overheid.moz.nmc.receipts.ReceiptStore;
import nl.overheid.moz.nmc.receipts.ReconcileSchedule;
import nl.overheid.moz.nmc.receipts.Reconciler;
import nl.overheid.moz.nmc.register.Register;
import nl.overheid.moz.nmc.register.RegisterSeed;
import nl.overheid.moz.nmc.sending.NotifyNlSettings;
import nl.overheid.moz.nmc.sending.InvalidAddressReporter;
import nl.overheid.moz.nmc.sending.SendPipeline;
import nl.overheid.moz.nmc.status.StatusQueries;

/**
 * The running NMC: one database, the HTTP API, the task workers and the periodic duties, wired by hand
 * through constructors, top to bottom. {@link #start} is what {@code Main} and the tests call, so tests run
 * the real assembly.
 */
public final class Nmc implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(Nmc.class.getName());
    /** After the grace period, how long interrupted tasks get to end before the pool closes under them. */
    private static final Duration ABANDON_SETTLE = Duration.ofSeconds(1);

    private final Database database;
    private final WebServer server;
    private final List<TaskWorker> workers;
    private final PepperCompromises pepperCompromises;
    private final DutyRunner duties;
    private final NmcMetrics metrics;
    private final Duration shutdownGrace;
    private boolean closed;

    private Nmc(Database database, WebServer server, List<TaskWorker> workers, DutyRunner duties,
                NmcMetrics metrics, PepperCompromises pepperCompromises, Duration shutdownGrace) {
        this.shutdownGrace = shutdownGrace;
        this.database = database;
        this.server = server;
        this.workers = workers;
        this.duties = duties;
        this.metrics = metrics;
        this.pepperCompromises = pepperCompromises;
    }

    /** The operator's action on peppers (marking a version compromised). */
    public PepperCompromises pepperCompromises() {
        return pepperCompromises;
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

    /** Starts with the real clients of NotifyNL, the Profielservice and the LDV. */
    public static Nmc start(Config config, Clock clock) {
        return start(config, clock, Parties.from(config));
    }

    /** Starts everything: migrate or validate the schema, seed the register, start the server, workers and duties. */
    public static Nmc start(Config config, Clock clock, Parties parties) {
        NmcSettings settings = NmcSettings.from(config);
        DatabaseSettings dbSettings = DatabaseSettings.from(config.get("db"));
        EngineSettings engineSettings = EngineSettings.from(config.get("engine"));
        NotifyNlSettings notifyNlSettings = NotifyNlSettings.from(config.get("notifynl"));
        ReconcileSchedule reconcileSchedule = ReconcileSchedule.from(config.get("lifecycle"));
        Database database = Database.open(dbSettings);
        try {
            if (dbSettings.schemaMode().equals("migrate")) {
                database.migrate();
            } else {
                try {
                    database.validate();
                } catch (org.flywaydb.core.api.FlywayException e) {
                    throw new IllegalStateException("db.schema validate: the database schema does not match the shipped"
                            + " migrations; apply them with the migration step first", e);
                }
            }
            Register register = new Register(database, clock,
                    config.get("register.cache-ttl").as(Duration.class).orElse(Duration.ofSeconds(5)));
            WebhookSettings webhookSettings = WebhookSettings.from(config.get("webhook"));
            WebhookTargets webhookTargets = new WebhookTargets(webhookSettings.allowPrivateTargets());
            RegisterSeed.from(config.get("register.seed")).ifPresent(seed -> {
                seed.requireWebhooks(webhookTargets::refusedUrl);
                seed.requireNotifyServices(notifyNlSettings.services().keySet());
                seed.apply(register);
            });
            // Fail fast rather than at the first send: a berichttype whose NotifyNL service has no key would get
            // NotifyNL's 400 with another service's key, recorded as niet-bezorgbaar.
            register.requireNotifyServices(notifyNlSettings.services().keySet());

            // The core: the lifecycle, the task engine, and where they meet.
            Transitions transitions = new Transitions(clock);
            PogingRepository pogingen = new PogingRepository(clock);
            NotificatieRepository reads = new NotificatieRepository();
            NmcMetrics metrics = new NmcMetrics();
            EngineEvents engineEvents = engineEvents(metrics);
            TaskRepository tasks = new TaskRepository(engineEvents);
            OwnedTasks owned = new OwnedTasks(database, tasks);
            RetentionSettings retentionSettings = RetentionSettings.from(config, settings.eventLogRetention());
            NotificatieTasks notificatieTasks = new NotificatieTasks(tasks, transitions, register, clock,
                    retentionSettings.eraseAfter());
            WorkSignals signals = new WorkSignals();
            // A budget per NotifyNL service, its key the service's name (the value of berichttype.notify_service).
            SendBudget budget = new SendBudget(notifyNlSettings.perMinute(), engineSettings.reconcileShare());
            UnusedTokens unusedTokens = new UnusedTokens(database, budget, clock);
            Envelope envelope = new Envelope(kekProvider(config.get("privacy.kek")));
            Peppers peppers = Peppers.from(config.get("privacy.pepper"));
            Peppers payloadPeppers = Peppers.from(config.get("privacy.payload-pepper"));
            Peppers ldvPeppers = Peppers.from(config.get("privacy.ldv-pepper"));
            DataSubjects dataSubjects = new DataSubjects(ldvPeppers);
            PepperCompromises pepperCompromises = new PepperCompromises(database, Map.of(
                    PepperCompromises.Purpose.DVREF, peppers, PepperCompromises.Purpose.PAYLOAD, payloadPeppers,
                    PepperCompromises.Purpose.LDV, ldvPeppers), clock);
            pepperCompromises.refresh();
            KeyRewrap keyRewrap = new KeyRewrap(database, envelope, metrics, retentionSettings.batchSize(),
                    retentionSettings.timeBudget());
            keyRewrap.requireConfiguredVersions();
            ProfielserviceSettings profielserviceSettings = ProfielserviceSettings.from(config.get("profielservice"));
            ReceiptRepository receiptRepository = new ReceiptRepository();
            ReceiptStore receiptStore = new ReceiptStore(database, receiptRepository, notificatieTasks, clock);
            Duration firstReconciliation = reconcileSchedule.steps().getFirst();
            FeedSettings feedSettings = FeedSettings.from(config.get("feed"));
            EventRepository events = new EventRepository();
            StatusEvents statusEvents = new StatusEvents(settings.eventSource());
            CursorCodec cursors = new CursorCodec(settings.cursorKey());
            SigningKeys signingKeys = SigningKeys.from(config.get("webhook.signing-keys"), webhookSettings, clock);
            WebhookPositions webhookPositions = new WebhookPositions();

            // The steps that run as tasks, one worker each.
            List<TaskWorker> workers = List.of(
                    new SendPipeline(owned, tasks, notificatieTasks, pogingen, reads, transitions, register,
                            envelope, parties.notifyNl(), unusedTokens, parties.profielservice(), parties.ldv(), clock,
                            engineSettings.lease(), engineSettings::backoff, firstReconciliation, metrics),
                    new ReceiptProcessor(owned, tasks, notificatieTasks, pogingen, receiptRepository, transitions, clock,
                            settings.mebvPeriod(), settings.finaliseMargin(), firstReconciliation, metrics),
                    new Reconciler(database, owned, tasks, notificatieTasks, pogingen, reads, transitions,
                            receiptStore, parties.notifyNl(), unusedTokens, parties.ldv(), reconcileSchedule, clock,
                            signals),
                    new Finaliser(owned, tasks, notificatieTasks, transitions, receiptRepository, clock),
                    new InvalidAddressReporter(owned, tasks, notificatieTasks, reads, envelope, parties.profielservice(),
                            parties.ldv(), metrics, clock, engineSettings.lease(), engineSettings::backoff,
                            profielserviceSettings.reportMaxPostponements()),
                    new Erasure(owned, tasks, notificatieTasks),
                    new WebhookDelivery(owned, tasks, webhookPositions, events, statusEvents, cursors, reads,
                            parties.ldv(), signingKeys, webhookTargets, new WebhookClient(webhookSettings),
                            webhookSettings, objectMapper(), metrics, clock, engineSettings.lease()))
                    .stream()
                    .map(handler -> new TaskWorker(handler, database, tasks, budget, signals, clock, engineSettings,
                            engineEvents))
                    .toList();
            Webhooks webhooks = new Webhooks(database, webhookPositions, tasks, events, cursors, signals, clock);
            FeedCalls feedCalls = new FeedCalls(database, clock, feedSettings.rateLimitPerSecond());
            OperatorAudit operatorAudit = new OperatorAudit(database, clock, retentionSettings.notifications());
            AcceptanceQuota acceptanceQuota = new AcceptanceQuota(database, clock);
            OperationalGauges gauges = new OperationalGauges(database, metrics, clock,
                    OperationalGauges.MissingContactSettings.from(config.get("observe.geen-contactgegevens")), budget);
            DutyRunner duties = new DutyRunner(List.of(
                    new ControlDuty(database, clock, settings.finaliseMargin(), signals, metrics),
                    gauges,
                    new EventPartitions(database),
                    new EventRetention(database, clock, settings.eventLogRetention()),
                    new SendBudgetUpkeep(database, budget, clock),
                    new NotificatieRetention(database, clock, retentionSettings),
                    keyRewrap,
                    pepperCompromises,
                    webhooks,
                    new UnacknowledgedReports(database, events, metrics, clock,
                            feedSettings.unacknowledgedCheckInterval(), feedSettings.unacknowledgedReportInterval(),
                            feedSettings.managementChannelTimeout()),
                    feedCalls,
                    acceptanceQuota,
                    operatorAudit), engineSettings.controlInterval());
            gauges.runOnce(); // the first scrape reads counted values, not zeros

            // The steps that answer requests.
            Acceptance acceptance = new Acceptance(database, transitions, notificatieTasks, reads, register, peppers,
                    payloadPeppers, envelope, dataSubjects, acceptanceQuota, clock, signals);
            Cancellation cancellation = new Cancellation(database, transitions, notificatieTasks);
            Feed feed = new Feed(database, events, statusEvents, cursors, clock);
            OperatorActions operatorActions = new OperatorActions(database, tasks, transitions, notificatieTasks, register, webhookTargets,
                    webhooks, events, keyRewrap, pepperCompromises, operatorAudit, signals, clock);

            // The HTTP edge.
            ObjectMapper mapper = objectMapper();
            ApiDocuments documents = ApiDocuments.load();
            SecurityHeaders securityHeaders = new SecurityHeaders(documents.version());
            ProblemResponses problems = new ProblemResponses(mapper, securityHeaders, metrics);
            Responses responses = new Responses(mapper);
            JsonBodies dvBodies = new JsonBodies(mapper, documents.dvSchemas(), settings.maxBodyBytes());
            JsonBodies callbackBodies = new JsonBodies(objectMapper()
                    .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE), documents.callbackSchemas(),
                    settings.maxBodyBytes());
            DvAuthenticator.AuthSettings authSettings = DvAuthenticator.AuthSettings.from(config.get("auth"));
            JwksSource gatewayKeys = new JwksSource(jwksUri(authSettings.jwksUri()),
                    authSettings.jwksRefreshInterval(), authSettings.jwksMaxFetchesPerMinute(), clock);
            DvAuthenticator authenticator = new DvAuthenticator(authSettings,
                    new TokenVerifier(gatewayKeys, authSettings.issuer(), authSettings.clockSkew(), clock), register);
            // Operators: the same verification for another audience and a role; by default the same gateway.
            OperatorAuthenticator.Settings operatorSettings = OperatorAuthenticator.Settings.from(
                    config.get("auth.operator"));
            JwksSource operatorKeys = operatorSettings.jwksUri() == null ? gatewayKeys
                    : new JwksSource(jwksUri(operatorSettings.jwksUri()), authSettings.jwksRefreshInterval(),
                            authSettings.jwksMaxFetchesPerMinute(), clock);
            OperatorAuthenticator operators = new OperatorAuthenticator(operatorSettings, new TokenVerifier(
                    operatorKeys, operatorSettings.issuer() == null ? authSettings.issuer() : operatorSettings.issuer(),
                    authSettings.clockSkew(), clock));
            JsonBodies operatorBodies = new JsonBodies(mapper, documents.operatorSchemas(), settings.maxBodyBytes());

            KeysResource keys = new KeysResource(signingKeys, responses, webhookSettings.jwksMaxAge());
            HttpRouting.Builder routing = HttpRouting.builder()
                    .addFilter(new ApiFilter(securityHeaders,
                            ApiRoutes.of(documents, ApiFilter.BASE_PATH, ApiFilter.OPERATOR_BASE_PATH,
                                    KeysResource.WELL_KNOWN_PATH),
                            authenticator, operators, problems, metrics))
                    .register(ApiFilter.BASE_PATH, new DocumentationResource(documents, mapper))
                    .register(ApiFilter.BASE_PATH + "/notifynl-callback",
                            new NotifyNlCallbackResource(CallbackTokens.from(notifyNlSettings), receiptStore,
                                    callbackBodies,
                                    () -> signals.nudge(TaskKind.VERWERKEN), metrics))
                    // The fixed path must be routed before /notificaties/{id}.
                    .register(ApiFilter.BASE_PATH + "/notificaties/wijzigingen",
                            new FeedResource(feed, feedCalls, dvBodies, responses, feedSettings.defaultLimit(),
                                    settings.feedMaxLimit()))
                    .register(ApiFilter.BASE_PATH + "/webhook", new WebhookResource(webhooks, feedCalls, responses))
                    .register(ApiFilter.BASE_PATH + "/sleutels", keys)
                    .get(KeysResource.WELL_KNOWN_PATH, keys.wellKnown())
                    .register(ApiFilter.BASE_PATH, new NotificatiesResource(acceptance, cancellation,
                            new StatusQueries(database, reads, pogingen, peppers), dvBodies,
                            new JsonBodies(mapper, documents.dvSchemas(), settings.maxBulkBodyBytes()), responses,
                            problems, mapper))
                    // The operator API (beheer-API), under its own base path.
                    .register(ApiFilter.OPERATOR_BASE_PATH, new OperatorDocumentationResource(documents, mapper))
                    .register(ApiFilter.OPERATOR_BASE_PATH + "/taken",
                            new OperatorTasksResource(operatorActions, operatorBodies, responses))
                    .register(ApiFilter.OPERATOR_BASE_PATH,
                            new OperatorNotificatiesResource(operatorActions, operatorBodies, responses))
                    .register(ApiFilter.OPERATOR_BASE_PATH, new OperatorRegisterResource(operatorActions, operatorBodies, responses))
                    .register(ApiFilter.OPERATOR_BASE_PATH, new OperatorKeysResource(operatorActions, operatorBodies, responses))
                    .register(ApiFilter.OPERATOR_BASE_PATH + "/beheeracties",
                            new OperatorAuditResource(operatorAudit, responses, mapper))
                    .error(ProblemException.class, (request, response, problem) -> problems.send(response, problem))
                    .error(BeheerRefused.class, (request, response, refused) -> problems.send(response,
                            DomainProblems.of(refused)))
                    .error(AcceptanceRefused.class, (request, response, refused) -> problems.send(response,
                            DomainProblems.of(refused)))
                    .error(CancelRefused.class, (request, response, refused) -> problems.send(response,
                            DomainProblems.of(refused)))
                    .error(CursorRefused.class, (request, response, refused) -> problems.send(response,
                            DomainProblems.of(refused)))
                    // What Helidon's routing refuses itself (a path under /observe it does not know: 404).
                    .error(HttpException.class, (request, response, refused) -> problems.send(response,
                            ProblemException.ofStatus(refused.status().code(), refused.status().reasonPhrase())))
                    // An unreachable database is a 503 the caller may retry; anything else unexpected a 500.
                    .error(Throwable.class, (request, response, error) -> {
                        if (SqlStates.unavailable(error)) {
                            problems.sendUnavailable(request, response);
                        } else {
                            problems.sendUnexpected(request, response, error);
                        }
                    });

            Readiness readiness = new Readiness(database, envelope, Map.of("privacy.pepper", peppers,
                    "privacy.payload-pepper", payloadPeppers, "privacy.ldv-pepper", ldvPeppers), clock,
                    config.get("observe.readiness-timeout").as(Duration.class).orElse(Duration.ofSeconds(2)),
                    config.get("observe.schema-check-interval").as(Duration.class).orElse(Duration.ofMinutes(1)));
            WebServer server = WebServer.builder()
                    .config(config.get("server"))
                    .addFeature(ObserveFeature.create(HealthObserver.builder()
                            .details(true).addChecks(readiness.checks().toArray(HealthCheck[]::new)).build(),
                            MetricsObserver.create()))
                    .addRouting(routing)
                    // Requests Helidon refuses before routing (a body over server.max-payload-size, a malformed
                    // request line or header) get a problem too, instead of its bare text.
                    .directHandlers(handlers -> java.util.Arrays.stream(DirectHandler.EventType.values())
                            .forEach(type -> handlers.addHandler(type, problems)))
                    // Stopped by close(), after the workers drained: Helidon's own hook would stop it at once.
                    .shutdownHook(false)
                    .build()
                    .start();
            if (config.get("engine.autostart").asBoolean().orElse(true)) {
                workers.forEach(TaskWorker::start);
                duties.start();
            }
            LOG.info(() -> "NMC listening on port " + server.port());
            return new Nmc(database, server, workers, duties, metrics, pepperCompromises,
                    engineSettings.shutdownGrace());
        } catch (RuntimeException e) {
            database.close();
            throw e;
        }
    }

    /** The engine's events, counted by the metrics (the engine knows no metric). */
    private static EngineEvents engineEvents(NmcMetrics metrics) {
        return new EngineEvents() {
            @Override
            public void claimRound(TaskKind kind, Duration took, int claimed) {
                metrics.claimRound(kind.dbValue(), took, claimed);
            }

            @Override
            public void leasesExpired(TaskKind kind, int count) {
                metrics.leasesExpired(kind.dbValue(), count);
            }

            @Override
            public void postponed(TaskKind kind, String cause) {
                metrics.postponed(kind.dbValue(), cause);
            }
        };
    }

    /** The KEK provider {@code privacy.kek.provider} names; the configuration's own keys are the only one so far. */
    private static KekProvider kekProvider(Config kek) {
        String provider = kek.get("provider").asString().orElse("configuration");
        if (!provider.equals("configuration")) {
            throw new IllegalArgumentException("privacy.kek.provider: unknown provider " + provider
                    + " (implement KekProvider for the platform's key service)");
        }
        return ConfiguredKeks.from(kek);
    }

    private static URI jwksUri(String value) {
        URI uri = URI.create(value);
        return uri.getScheme() == null ? Path.of(value).toAbsolutePath().toUri() : uri;
    }

    public int port() {
        return server.port();
    }

    /** Runs one claim round of every worker now (tests drive time with a clock and call this). */
    public int runWorkersOnce() {
        return workers.stream().mapToInt(TaskWorker::runOnce).sum();
    }

    /** Runs one claim round of the worker of one kind now (tests stage interleavings with it). */
    public int runWorkerOnce(TaskKind kind) {
        return workers.stream().filter(worker -> worker.kind() == kind).mapToInt(TaskWorker::runOnce).sum();
    }

    /** Runs the periodic duties once now (the control duty plans missing tasks); returns what they did. */
    public int runDutiesOnce() {
        return duties.runAllOnce();
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
        long deadline = System.nanoTime() + shutdownGrace.toNanos();
        workers.forEach(TaskWorker::stopClaiming);
        duties.close(deadline);
        List<TaskWorker> late = workers.stream().filter(worker -> !worker.awaitDrained(deadline)).toList();
        late.forEach(worker -> worker.abandon(ABANDON_SETTLE));
        int released = workers.stream().mapToInt(TaskWorker::released).sum();
        LOG.info(() -> "NMC stopping: " + released + " claimed task(s) released unstarted; "
                + (late.isEmpty() ? "every running task finished" : "tasks of " + late.stream()
                .map(worker -> worker.kind().dbValue()).toList() + " still ran after " + shutdownGrace
                + " and are left to their leases"));
        server.stop();
        metrics.close();
        database.close();
    }
}
