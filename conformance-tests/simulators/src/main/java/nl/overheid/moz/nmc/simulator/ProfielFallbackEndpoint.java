package nl.overheid.moz.nmc.simulator;

import com.github.tomakehurst.wiremock.extension.Parameters;
import com.github.tomakehurst.wiremock.http.Request;
import java.util.Map;

/**
 * The answers of the real service's JAX-RS outside its operations: another method on a route the simulator
 * serves is 405 {@code {"status":405,"title":"Method Not Allowed"}} with {@code Allow} (the stub's transformer
 * parameter {@value #ALLOW}), any other path 404 {@code {"status":404,"title":"Not Found"}}. The real service
 * would also name the path in {@code instance}; the simulator leaves it out so that nothing of the request comes
 * back. Operations of the real contract the NMC does not use (bulk lookup, voorkeuren, adding contact data) are
 * not simulated and answer this 404.
 */
final class ProfielFallbackEndpoint extends ProfielEndpoint {

    static final String ALLOW = "allow";

    ProfielFallbackEndpoint(ProfielContext context) {
        super(context, ProfielserviceSimulator.FALLBACK_TRANSFORMER, null);
    }

    @Override
    Answer handle(Request request, String path, Parameters parameters) {
        Object allow = parameters.get(ALLOW);
        if (allow != null) {
            return problem(405, "Method Not Allowed", null, null, Map.of(), "method not allowed")
                    .withHeader("Allow", allow.toString());
        }
        return problem(404, "Not Found", null, null, Map.of(), "no such route");
    }

    @Override
    String label(Request request, String path) {
        String method = request.getMethod().getName();
        if (path.equals(ProfielserviceSimulator.PARTIJ_PATH)) {
            return method + " /partij";
        }
        if (path.startsWith(ProfielserviceSimulator.CONTACTGEGEVEN_PATH + "/")) {
            String idText = path.substring(path.lastIndexOf('/') + 1);
            return method + " /contactgegeven/" + (FscOutway.isUuid(idText) ? idText : "(not a uuid)");
        }
        return method + " (no such route)";
    }
}
