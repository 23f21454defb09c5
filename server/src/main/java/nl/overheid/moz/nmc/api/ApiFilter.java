package nl.overheid.moz.nmc.api;

import io.helidon.http.HeaderNames;
import io.helidon.http.Method;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;
import java.util.Optional;
import nl.overheid.moz.nmc.register.Dienstverlener;

/**
 * Runs before every route: sets {@code API-Version} and the security headers on every response
 * ({@link SecurityHeaders}), answers a path or method outside the contracts with a 404 or 405 problem
 * ({@link ApiRoutes}), and authenticates the DV calls and the operator calls each contract protects, each with its
 * own audience. The published OpenAPI documents and
 * the JWKS are open to all; the NotifyNL callback has its own bearer token. {@code /observe} belongs to Helidon's
 * observe feature (its unknown paths reach the routing's 404) and is only given the headers.
 */
public final class ApiFilter implements Filter {

    public static final String BASE_PATH = "/api/nmc/v1";
    /** The operator API (beheer-API): its own contract, audience and role. */
    public static final String OPERATOR_BASE_PATH = "/api/nmc-beheer/v1";
    public static final String OBSERVE_PATH = "/observe";

    private final SecurityHeaders headers;
    private final ApiRoutes routes;
    private final DvAuthenticator authenticator;
    private final OperatorAuthenticator operators;
    private final ProblemResponses problems;

    public ApiFilter(SecurityHeaders headers, ApiRoutes routes, DvAuthenticator authenticator,
                     OperatorAuthenticator operators, ProblemResponses problems) {
        this.headers = headers;
        this.routes = routes;
        this.authenticator = authenticator;
        this.operators = operators;
        this.problems = problems;
    }

    @Override
    public void filter(FilterChain chain, RoutingRequest request, RoutingResponse response) {
        headers.apply(response.headers());
        String path = request.path().path();
        if (path.equals(OBSERVE_PATH) || path.startsWith(OBSERVE_PATH + "/")) {
            // Helidon's health observer sets "no-cache" itself; the rules ask for no-store.
            response.beforeSend(() -> headers.apply(response.headers()));
            chain.proceed();
            return;
        }
        Method method = request.prologue().method();
        Optional<ApiRoutes.Route> route = routes.match(path);
        try {
            if (route.isEmpty()) {
                throw ProblemException.notFound();
            }
            if (!route.get().allows(method)) {
                throw ProblemException.methodNotAllowed(route.get().allow());
            }
            switch (route.get().guard(method)) {
                case DV -> {
                    Dienstverlener caller = authenticator.authenticate(
                            request.headers().value(HeaderNames.AUTHORIZATION));
                    request.context().register(caller);
                }
                case OPERATOR -> request.context().register(
                        operators.authenticate(request.headers().value(HeaderNames.AUTHORIZATION)));
                case OPEN -> {
                }
            }
        } catch (ProblemException problem) {
            problems.send(response, problem);
            return;
        }
        chain.proceed();
    }
}
