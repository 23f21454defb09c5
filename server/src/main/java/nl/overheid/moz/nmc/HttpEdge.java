package nl.overheid.moz.nmc;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import io.helidon.config.Config;
import io.helidon.health.HealthCheck;
import io.helidon.http.DirectHandler;
import io.helidon.http.HttpException;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.observe.ObserveFeature;
import io.helidon.webserver.observe.health.HealthObserver;
import io.helidon.webserver.observe.metrics.MetricsObserver;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import nl.overheid.moz.nmc.api.ApiDocuments;
import nl.overheid.moz.nmc.api.ApiFilter;
import nl.overheid.moz.nmc.api.ApiRoutes;
import nl.overheid.moz.nmc.api.DocumentationResource;
import nl.overheid.moz.nmc.api.DomainProblems;
import nl.overheid.moz.nmc.api.DvAuthenticator;
import nl.overheid.moz.nmc.api.FeedResource;
import nl.overheid.moz.nmc.api.JsonBodies;
import nl.overheid.moz.nmc.api.JwksSource;
import nl.overheid.moz.nmc.api.KeysResource;
import nl.overheid.moz.nmc.api.NotificatiesResource;
import nl.overheid.moz.nmc.api.NotifyNlCallbackResource;
import nl.overheid.moz.nmc.api.OperatorAuditResource;
import nl.overheid.moz.nmc.api.OperatorAuthenticator;
import nl.overheid.moz.nmc.api.OperatorDocumentationResource;
import nl.overheid.moz.nmc.api.OperatorKeysResource;
import nl.overheid.moz.nmc.api.OperatorNotificatiesResource;
import nl.overheid.moz.nmc.api.OperatorRegisterResource;
import nl.overheid.moz.nmc.api.OperatorTasksResource;
import nl.overheid.moz.nmc.api.ProblemException;
import nl.overheid.moz.nmc.api.ProblemResponses;
import nl.overheid.moz.nmc.api.RequestLimits;
import nl.overheid.moz.nmc.api.Responses;
import nl.overheid.moz.nmc.api.SecurityHeaders;
import nl.overheid.moz.nmc.api.TokenVerifier;
import nl.overheid.moz.nmc.api.WebhookResource;
import nl.overheid.moz.nmc.db.SqlStates;
import nl.overheid.moz.nmc.engine.TaskKind;
import nl.overheid.moz.nmc.observe.Readiness;
import nl.overheid.moz.nmc.receipts.CallbackTokens;
import nl.overheid.moz.nmc.refusal.Refusal;

/**
 * The HTTP edge: the DV API, the NotifyNL callback, the JWKS, the operator API under its own base path, and the
 * observe endpoints; authentication and the contract's routes in one filter, every refusal and error as an RFC 9457
 * problem (never a 500 for a caller's mistake, a 503 for an unreachable database).
 */
record HttpEdge(WebServer server) {

    /** Builds the routing and starts the web server. */
    static HttpEdge start(Config config, Core core, Keys keys, Steps steps) {
        Settings settings = core.settings();
        Clock clock = core.clock();
        ObjectMapper mapper = Nmc.objectMapper();
        ApiDocuments documents = ApiDocuments.load();
        SecurityHeaders securityHeaders = new SecurityHeaders(documents.version());
        ApiRoutes routes = ApiRoutes.of(
                documents, ApiFilter.BASE_PATH, ApiFilter.OPERATOR_BASE_PATH, KeysResource.WELL_KNOWN_PATH);
        ProblemResponses problems = new ProblemResponses(
                mapper, securityHeaders, core.metrics(), path -> routes.version(path, routes.match(path)));
        Responses responses = new Responses(mapper);
        int maxBody = settings.nmc().maxBodyBytes();
        JsonBodies dvBodies = new JsonBodies(mapper, documents.dvSchemas(), maxBody);
        JsonBodies callbackBodies = new JsonBodies(
                Nmc.objectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE),
                documents.callbackSchemas(),
                maxBody);
        JsonBodies operatorBodies = new JsonBodies(mapper, documents.operatorSchemas(), maxBody);

        DvAuthenticator.AuthSettings auth = DvAuthenticator.AuthSettings.from(config.get("auth"));
        JwksSource gatewayKeys = new JwksSource(
                jwksUri(auth.jwksUri()), auth.jwksRefreshInterval(), auth.jwksMaxFetchesPerMinute(), clock);
        DvAuthenticator dvs =
                new DvAuthenticator(auth, new TokenVerifier(gatewayKeys, auth.issuer(), auth, clock), core.register());
        // Operators: the same verification for another audience and a role; by default the same gateway.
        OperatorAuthenticator.Settings operatorAuth = OperatorAuthenticator.Settings.from(config.get("auth.operator"));
        JwksSource operatorKeys = operatorAuth.jwksUri() == null
                ? gatewayKeys
                : new JwksSource(
                        jwksUri(operatorAuth.jwksUri()),
                        auth.jwksRefreshInterval(),
                        auth.jwksMaxFetchesPerMinute(),
                        clock);
        OperatorAuthenticator operators = new OperatorAuthenticator(
                operatorAuth,
                new TokenVerifier(
                        operatorKeys,
                        operatorAuth.issuer() == null ? auth.issuer() : operatorAuth.issuer(),
                        auth,
                        clock));

        KeysResource jwks = new KeysResource(
                keys.signingKeys(), responses, settings.webhook().jwksMaxAge());
        String base = ApiFilter.BASE_PATH;
        String operatorBase = ApiFilter.OPERATOR_BASE_PATH;
        RequestLimits limits = new RequestLimits(settings.requestLimits(), steps.dvCalls(), core.metrics());
        HttpRouting.Builder routing = HttpRouting.builder()
                .addFilter(new ApiFilter(
                        securityHeaders, routes, dvs, operators, problems, core.metrics(), limits, core.tracing()))
                .register(base, new DocumentationResource(documents, mapper))
                .register(
                        base + "/notifynl-callback",
                        new NotifyNlCallbackResource(
                                CallbackTokens.from(settings.notifyNl()),
                                steps.receiptStore(),
                                callbackBodies,
                                () -> core.signals().nudge(TaskKind.VERWERKEN),
                                core.metrics()))
                // The fixed path must be routed before /notificaties/{id}.
                .register(
                        base + "/notificaties/wijzigingen",
                        new FeedResource(
                                steps.feed(),
                                dvBodies,
                                responses,
                                settings.feed().defaultLimit(),
                                settings.nmc().feedMaxLimit()))
                .register(base + "/webhook", new WebhookResource(steps.webhooks(), responses))
                .register(base + "/sleutels", jwks)
                .get(KeysResource.WELL_KNOWN_PATH, jwks.wellKnown())
                .register(
                        base,
                        new NotificatiesResource(
                                steps.acceptance(),
                                steps.cancellation(),
                                steps.status(),
                                dvBodies,
                                new JsonBodies(
                                        mapper,
                                        documents.dvSchemas(),
                                        settings.nmc().maxBulkBodyBytes()),
                                responses,
                                problems,
                                mapper))
                // The operator API (beheer-API), under its own base path.
                .register(operatorBase, new OperatorDocumentationResource(documents, mapper))
                .register(
                        operatorBase + "/taken",
                        new OperatorTasksResource(steps.operatorActions(), operatorBodies, responses))
                .register(
                        operatorBase,
                        new OperatorNotificatiesResource(steps.operatorActions(), operatorBodies, responses))
                .register(
                        operatorBase, new OperatorRegisterResource(steps.operatorActions(), operatorBodies, responses))
                .register(operatorBase, new OperatorKeysResource(steps.operatorActions(), operatorBodies, responses))
                .register(
                        operatorBase + "/beheeracties",
                        new OperatorAuditResource(steps.operatorAudit(), responses, mapper));
        withProblems(routing, problems, limits::heldRefusal);

        Readiness readiness = new Readiness(
                core.database(),
                keys.envelope(),
                Map.of(
                        "privacy.pepper",
                        keys.peppers(),
                        "privacy.payload-pepper",
                        keys.payloadPeppers(),
                        "privacy.ldv-pepper",
                        keys.ldvPeppers()),
                clock,
                config.get("observe.readiness-timeout").as(Duration.class).orElse(Duration.ofSeconds(2)),
                config.get("observe.schema-check-interval").as(Duration.class).orElse(Duration.ofMinutes(1)),
                config.get("observe.readiness-cache").as(Duration.class).orElse(Duration.ofSeconds(1)));
        // The observe endpoints (health with details, metrics with per-DV labels) on a port of their own that the
        // manifests' Service and Ingress do not expose; the API port has no /observe (a 404 problem there).
        int managementPort = config.get("observe.port").asInt().orElse(9090);
        String managementHost = config.get("observe.host")
                .asString()
                .orElse(config.get("server.host").asString().orElse("0.0.0.0"));
        WebServer server = WebServer.builder()
                .config(config.get("server"))
                .putSocket(
                        MANAGEMENT_SOCKET,
                        socket -> socket.port(managementPort)
                                .host(managementHost)
                                .directHandlers(handlers -> Arrays.stream(DirectHandler.EventType.values())
                                        .forEach(type -> handlers.addHandler(type, problems))))
                .addFeature(ObserveFeature.builder()
                        .sockets(java.util.List.of(MANAGEMENT_SOCKET))
                        .addObserver(HealthObserver.builder()
                                .details(true)
                                .addChecks(readiness.checks().toArray(HealthCheck[]::new))
                                .build())
                        .addObserver(MetricsObserver.create())
                        .build())
                .addRouting(routing)
                .routing(
                        MANAGEMENT_SOCKET,
                        withProblems(
                                HttpRouting.builder().addFilter(securityHeaders.filter()),
                                problems,
                                (request, problem) -> problem))
                // Requests Helidon refuses before routing (a body over server.max-payload-size, a malformed
                // request line or header) get a problem too, instead of its bare text.
                .directHandlers(handlers -> Arrays.stream(DirectHandler.EventType.values())
                        .forEach(type -> handlers.addHandler(type, problems)))
                // Stopped by Nmc.close(), after the workers drained: Helidon's own hook would stop it at once.
                .shutdownHook(false)
                .build()
                .start();
        // Helidon logs a socket it could not bind (a port in use) and carries on with the server stopped; the NMC
        // would then run its workers with no port open and end with exit status 0. It refuses to start instead.
        if (!server.isRunning() || server.port() < 0 || server.port(MANAGEMENT_SOCKET) < 0) {
            server.stop();
            throw new IllegalStateException("the web server could not listen on server.port "
                    + config.get("server.port").asString().orElse("(default)") + " and observe.port "
                    + config.get("observe.port").asString().orElse("(default)") + " (a port in use?)");
        }
        return new HttpEdge(server);
    }

    /** The socket of the observe endpoints ({@code observe.port}). */
    static final String MANAGEMENT_SOCKET = "management";

    int port() {
        return server.port();
    }

    int managementPort() {
        return server.port(MANAGEMENT_SOCKET);
    }

    /**
     * Every refusal and error of a routing as an RFC 9457 problem; a domain refusal that is a 429 (the DV's quota
     * used up) through {@code held}, as the request limits' own refusals are: a client that sends again at once
     * must not turn it into a flood of calls.
     */
    private static HttpRouting.Builder withProblems(
            HttpRouting.Builder routing,
            ProblemResponses problems,
            java.util.function.BiFunction<ServerRequest, ProblemException, ProblemException> held) {
        return routing.error(
                        ProblemException.class,
                        (request, response, problem) -> problems.send(request, response, problem))
                .error(Refusal.class, (request, response, refusal) -> {
                    ProblemException problem = DomainProblems.of(refusal);
                    problems.send(request, response, problem.status() == 429 ? held.apply(request, problem) : problem);
                })
                // What Helidon's routing refuses itself (a path it does not know: 404).
                .error(
                        HttpException.class,
                        (request, response, refused) -> problems.send(
                                request,
                                response,
                                ProblemException.ofStatus(
                                        refused.status().code(),
                                        refused.status().reasonPhrase())))
                // An unreachable database is a 503 the caller may retry; anything else unexpected a 500.
                .error(Throwable.class, (request, response, error) -> {
                    if (SqlStates.unavailable(error)) {
                        problems.sendUnavailable(request, response);
                    } else {
                        problems.sendUnexpected(request, response, error);
                    }
                });
    }

    void stop() {
        server.stop();
    }

    private static URI jwksUri(String value) {
        URI uri = URI.create(value);
        return uri.getScheme() == null ? Path.of(value).toAbsolutePath().toUri() : uri;
    }
}
