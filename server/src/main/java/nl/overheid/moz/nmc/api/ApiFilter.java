package nl.overheid.moz.nmc.api;

import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;
import java.util.Set;
import nl.overheid.moz.nmc.register.Dienstverlener;

/**
 * Runs before every route: sets {@code API-Version} on every response (NL API Design Rules
 * {@code /core/version-header}) and authenticates DV calls. The published OpenAPI documents are open to
 * all (with CORS for any origin); the NotifyNL callback has its own bearer token.
 */
public final class ApiFilter implements Filter {

    public static final String BASE_PATH = "/api/nmc/v1";
    private static final Set<String> OPEN_PATHS = Set.of(BASE_PATH + "/openapi.json", BASE_PATH + "/openapi.yaml",
            BASE_PATH + "/notifynl-callback", BASE_PATH + "/sleutels");

    private final String apiVersion;
    private final DvAuthenticator authenticator;
    private final ProblemResponses problems;

    public ApiFilter(String apiVersion, DvAuthenticator authenticator, ProblemResponses problems) {
        this.apiVersion = apiVersion;
        this.authenticator = authenticator;
        this.problems = problems;
    }

    @Override
    public void filter(FilterChain chain, RoutingRequest request, RoutingResponse response) {
        response.header(HeaderNames.create("API-Version"), apiVersion);
        String path = request.path().path();
        boolean api = path.equals(BASE_PATH) || path.startsWith(BASE_PATH + "/");
        if (!api || OPEN_PATHS.contains(path)) {
            chain.proceed();
            return;
        }
        try {
            Dienstverlener caller = authenticator.authenticate(request.headers().value(HeaderNames.AUTHORIZATION));
            request.context().register(caller);
        } catch (ProblemException problem) {
            problems.send(response, problem);
            return;
        }
        chain.proceed();
    }
}
