package nl.overheid.moz.nmc.simulator;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.extension.ResponseDefinitionTransformerV2;
import com.github.tomakehurst.wiremock.http.HttpHeader;
import com.github.tomakehurst.wiremock.http.HttpHeaders;
import com.github.tomakehurst.wiremock.http.Request;
import com.github.tomakehurst.wiremock.http.ResponseDefinition;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One endpoint of Notify's v2 API as a WireMock response transformer: authenticates the request like Notify
 * (see {@link NotifyJwtVerifier}; then an archived service or a revoked key is the 403 Notify answers), then lets the
 * subclass answer it.
 *
 * <p>The answer is built {@linkplain ResponseDefinitionBuilder#like like} the stub that matched, so a test
 * stub that names this transformer keeps its own delay or fault: for example a priority-1 stub with
 * {@code withTransformers(NotifyNlSimulator.SEND_EMAIL_TRANSFORMER)} and
 * {@code withFault(Fault.CONNECTION_RESET_BY_PEER)} makes the simulator accept and deliver the e-mail while the
 * caller never sees the 201.
 */
abstract class NotifyEndpoint implements ResponseDefinitionTransformerV2 {

    protected final Simulation simulation;
    private final String name;
    private final String label;

    /**
     * @param name  the transformer name stubs refer to
     * @param label method and path template for log lines, e.g. {@code GET /v2/notifications/{id}}
     */
    NotifyEndpoint(Simulation simulation, String name, String label) {
        this.simulation = simulation;
        this.name = name;
        this.label = label;
    }

    @Override
    public final String getName() {
        return name;
    }

    @Override
    public final boolean applyGlobally() {
        return false;
    }

    @Override
    public final ResponseDefinition transform(ServeEvent serveEvent) {
        Request request = serveEvent.getRequest();
        Instant now = simulation.clock().instant();
        // The token's iat is checked against the real time: Notify's 30-second rule is about clocks that drift.
        NotifyJwtVerifier.Checked checked =
                simulation.jwtVerifier().check(request.header("Authorization"), Instant.now());
        if (checked.error() != null) {
            return error(serveEvent, checked.error());
        }
        ServiceState state = simulation.state(checked.service());
        if (state.archived()) {
            return error(serveEvent, NotifyError.of(403, "AuthError", NotifyNlSimulator.SERVICE_ARCHIVED));
        }
        if (state.keyRevoked()) {
            return error(serveEvent, NotifyError.of(403, "AuthError", NotifyNlSimulator.KEY_REVOKED));
        }
        return handle(serveEvent, request, now, checked.service());
    }

    /** Answers an authenticated request, which acts for {@code service} (whose key signed it). */
    abstract ResponseDefinition handle(
            ServeEvent serveEvent, Request request, Instant now, NotifyNlSimulator.Service service);

    /** A JSON answer, logged as {@code <label> <status> <detail>}. */
    final ResponseDefinition json(ServeEvent serveEvent, int status, String body, String logDetail) {
        simulation.log(label + " " + status + (logDetail.isEmpty() ? "" : " " + logDetail));
        return ResponseDefinitionBuilder.like(serveEvent.getResponseDefinition())
                .but()
                .withStatus(status)
                .withHeaders(new HttpHeaders(new HttpHeader("Content-Type", "application/json")))
                .withBody(body)
                .build();
    }

    /** Notify's error body; only the error name is logged (messages may echo request values). */
    final ResponseDefinition error(ServeEvent serveEvent, NotifyError error) {
        return json(serveEvent, error.statusCode(), error.toJson(), error.error());
    }

    /** {@code scheme://host:port} as the client addressed it: Notify builds its URIs from the request. */
    static String urlRoot(Request request) {
        String absolute = request.getAbsoluteUrl();
        int pathStart = absolute.indexOf('/', absolute.indexOf("://") + 3);
        return pathStart < 0 ? absolute : absolute.substring(0, pathStart);
    }

    /** The decoded path, without the query string. */
    static String path(Request request) {
        String url = request.getUrl();
        int query = url.indexOf('?');
        return URLDecoder.decode(query < 0 ? url : url.substring(0, query), StandardCharsets.UTF_8);
    }

    /** The query parameters in request order, each with all its values. */
    static Map<String, List<String>> query(Request request) {
        Map<String, List<String>> parameters = new LinkedHashMap<>();
        String url = request.getUrl();
        int start = url.indexOf('?');
        if (start < 0 || start == url.length() - 1) {
            return parameters;
        }
        for (String pair : url.substring(start + 1).split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int equals = pair.indexOf('=');
            String key = URLDecoder.decode(equals < 0 ? pair : pair.substring(0, equals), StandardCharsets.UTF_8);
            String value = equals < 0 ? "" : URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8);
            parameters.computeIfAbsent(key, ignored -> new ArrayList<>()).add(value);
        }
        return parameters;
    }
}
