package nl.overheid.moz.nmc.api;

import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.Method;
import io.helidon.webserver.CloseConnectionException;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import nl.overheid.moz.nmc.logging.LogContext;
import nl.overheid.moz.nmc.observe.NmcMetrics;
import nl.overheid.moz.nmc.register.Dienstverlener;
import nl.overheid.moz.nmc.trace.Tracing;

/**
 * Runs before every route: sets {@code API-Version} and the security headers on every response
 * ({@link SecurityHeaders}), answers a path or method outside the contracts with a 404 or 405 problem
 * ({@link ApiRoutes}), and authenticates the DV calls and the operator calls each contract protects, each with its
 * own audience, and admits each DV call under the limits of {@link RequestLimits}. The published OpenAPI documents and
 * the JWKS are open to all; the NotifyNL callback has its own bearer token. {@code /observe} is not on this port
 * (it is served on the management port, {@code observe.port}): here it is a path like any unknown one.
 */
public final class ApiFilter implements Filter {

    public static final String BASE_PATH = "/api/nmc/v1";
    /** The operator API (beheer-API): its own contract, audience and role. */
    public static final String OPERATOR_BASE_PATH = "/api/nmc-beheer/v1";

    private static final io.helidon.http.HeaderName TRACEPARENT_HEADER = HeaderNames.create("traceparent");
    /** FSC's id of the call, set by the DV's Outway: taken into the request's log lines when it is a UUID. */
    private static final io.helidon.http.HeaderName FSC_TRANSACTION_ID = HeaderNames.create("Fsc-Transaction-Id");

    private static final java.util.regex.Pattern UUID_TEXT = java.util.regex.Pattern.compile(
            "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$");
    /** The methods a span names; any other is {@code _OTHER} (the conventions' bound on what a caller sends). */
    private static final java.util.Set<String> KNOWN_METHODS =
            java.util.Set.of("GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS");

    /** The most of a refused call's body that is still read, to keep its connection open. */
    static final long DRAINED_BODY_BYTES = 64 * 1024;

    /** The operation label of a request outside the contracts (bounded: never the path or method sent). */
    public static final String UNKNOWN_OPERATION = "onbekend";

    /*
     * The operation of the request this thread answers, for the problem metrics: Helidon runs a request's filter,
     * handler and error handlers on one thread, and the error handlers after this filter returned, so it is
     * cleared when the response is sent (and replaced by the next request's filter).
     */
    private static final ThreadLocal<String> OPERATION = new ThreadLocal<>();

    private final SecurityHeaders headers;
    private final ApiRoutes routes;
    private final DvAuthenticator authenticator;
    private final OperatorAuthenticator operators;
    private final ProblemResponses problems;
    private final NmcMetrics metrics;
    private final RequestLimits limits;
    private final Tracing tracing;

    public ApiFilter(
            SecurityHeaders headers,
            ApiRoutes routes,
            DvAuthenticator authenticator,
            OperatorAuthenticator operators,
            ProblemResponses problems,
            NmcMetrics metrics,
            RequestLimits limits,
            Tracing tracing) {
        this.headers = headers;
        this.routes = routes;
        this.authenticator = authenticator;
        this.operators = operators;
        this.problems = problems;
        this.metrics = metrics;
        this.limits = limits;
        this.tracing = tracing;
    }

    /** The operation of the request the current thread answers ({@link #UNKNOWN_OPERATION} outside one). */
    static String currentOperation() {
        return java.util.Objects.requireNonNullElse(OPERATION.get(), UNKNOWN_OPERATION);
    }

    /**
     * Whether a call refused here (before its body is read: not authenticated, or over a concurrency or rate limit)
     * has more than {@value #DRAINED_BODY_BYTES} bytes of body (or a chunked body) still to come. Helidon would read
     * and discard all of it to keep the connection; under a flood of refused 4 MB bulk calls that reading took the
     * carrier threads from the calls admitted (benchmark {@code flood}: another DV's median from 1.4 ms to 1.1 s), so
     * such a refusal closes the connection instead. A client still sending may then see the closed connection rather
     * than the 429; one that sends {@code Expect: 100-continue} gets the 429 before it sends any body. The open routes
     * (NotifyNL's callback refusing a token, a document fetched with a body) close it alike. A refusal
     * after the body is read, and the quota's refusal of a bulk call, keep the connection: that is where an honest
     * DV meets a limit.
     */
    private static boolean largeBodyUnread(RoutingRequest request) {
        io.helidon.http.media.ReadableEntity body = request.content();
        return body.hasEntity()
                && !body.consumed()
                && request.headers().contentLength().orElse(Long.MAX_VALUE) > DRAINED_BODY_BYTES;
    }

    @Override
    public void filter(FilterChain chain, RoutingRequest request, RoutingResponse response) {
        headers.apply(response.headers());
        String path = request.path().path();
        Method method = request.prologue().method();
        Optional<ApiRoutes.Route> route = routes.match(path);
        // the operator API's and the callback's answers carry their own contract's version (/core/version-header)
        response.headers().set(HeaderNames.create("API-Version"), routes.version(path, route));
        String operation = route.map(r -> (r.allows(method) ? method.text() : "?") + " " + r.template())
                .orElse(UNKNOWN_OPERATION);
        long started = System.nanoTime();
        OPERATION.set(operation);
        // The request's span (the caller's trace, or a new one): named by the route template, never the path. Its ids
        // are the request's in the log lines, and a notification accepted here has it as its acceptance span.
        Tracing.Request traced = tracing.request(
                request.headers().first(TRACEPARENT_HEADER),
                operation,
                KNOWN_METHODS.contains(method.text()) ? method.text() : "_OTHER",
                route.map(ApiRoutes.Route::template).orElse(null));
        request.context().register(traced.ids());
        Map<String, String> logged = new java.util.HashMap<>(Map.of(
                LogContext.TRACE_ID, traced.ids().traceId(),
                LogContext.SPAN_ID, traced.ids().spanId()));
        request.headers()
                .first(FSC_TRANSACTION_ID)
                .filter(id -> UUID_TEXT.matcher(id).matches())
                .ifPresent(id -> logged.put(LogContext.FSC_TRANSACTION_ID, id.toLowerCase(java.util.Locale.ROOT)));
        LogContext.Scope context = LogContext.start(logged);
        response.beforeSend(() -> {
            int status = response.status().code();
            metrics.apiRequest(operation, status, Duration.ofNanos(System.nanoTime() - started));
            traced.end(status);
            OPERATION.remove();
            context.close();
        });
        RequestLimits.Permit permit = null;
        try {
            if (route.isEmpty()) {
                throw ProblemException.notFound();
            }
            if (!route.get().allows(method)) {
                throw ProblemException.methodNotAllowed(route.get().allow());
            }
            switch (route.get().guard(method)) {
                case DV -> {
                    Dienstverlener caller =
                            authenticator.authenticate(request.headers().value(HeaderNames.AUTHORIZATION));
                    request.context().register(caller);
                    // The DV's id as the task lines name it; the request's context ends with its response.
                    LogContext.with(LogContext.DV_ID, caller.id());
                    traced.dv(String.valueOf(caller.id()));
                    // before the body is read: a call over a limit costs no memory and no work
                    RequestLimits.Kind kind =
                            RequestLimits.kind(BASE_PATH, route.get().template(), method);
                    permit = limits.admit(caller, kind);
                    request.context().register(permit);
                    if (kind == RequestLimits.Kind.BULK) {
                        request.context().register(limits.pace(caller));
                    }
                }
                case OPERATOR ->
                    request.context()
                            .register(operators.authenticate(request.headers().value(HeaderNames.AUTHORIZATION)));
                case OPEN -> {}
            }
        } catch (ProblemException problem) {
            if (largeBodyUnread(request)) {
                response.header(HeaderValues.CONNECTION_CLOSE);
                problems.send(request, response, problem);
                // Helidon lets this through its error handlers to the connection, which it closes unread
                throw new CloseConnectionException("refused before its body was read");
            }
            problems.send(request, response, problem);
            closeWhenAsked(response);
            return;
        }
        try {
            chain.proceed();
        } finally {
            if (permit != null) {
                permit.close();
                limits.answered(permit, request.context());
            }
        }
        // An open route answered without reading a large body: NotifyNL's callback refusing a token (its problem is
        // sent by the routing's error handler, within proceed()), a document fetched with a body. No token or rate
        // limit guards these routes, so such a body is not drained either: the answer is out, the connection closed.
        if (route.get().guard(method) == ApiRoutes.Guard.OPEN && response.isSent() && largeBodyUnread(request)) {
            throw new CloseConnectionException("answered without reading its body");
        }
        closeWhenAsked(response);
    }

    /**
     * Closes the connection after an answer that says {@code Connection: close}: the request asked it (RFC 9112 §9.6:
     * the server then MUST close it; Helidon puts it in the answer), or the answer did ({@link
     * ProblemException#framing}). Helidon 4.5 sends the header but keeps the connection open
     * (helidon-io/helidon#12324, fixed after 4.5.3; 4.5.0 is the newest served here), and a client reading to its end
     * waited for its own timeout.
     */
    private static void closeWhenAsked(RoutingResponse response) {
        if (response.isSent() && response.headers().contains(HeaderValues.CONNECTION_CLOSE)) {
            throw new CloseConnectionException("answered with Connection: close");
        }
    }
}
