package nl.overheid.moz.nmc.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.helidon.http.DirectHandler;
import io.helidon.http.HeaderNames;
import io.helidon.http.HttpMediaType;
import io.helidon.http.Method;
import io.helidon.http.ServerResponseHeaders;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.observe.NmcMetrics;

/**
 * Writes RFC 9457 problems, for a handler's response and, as Helidon's {@link DirectHandler}, for a request the
 * web server refuses before routing (a body over {@code server.max-payload-size}, a malformed request line or
 * header): those get the same problem body and headers instead of Helidon's bare text. Helidon's Jackson support
 * will not write {@code application/problem+json}, so the bytes are serialised here. Unexpected exceptions become a
 * bare 500 with an instance id that is also logged, so an operator can find the stack trace; the problem carries
 * no internals.
 */
public final class ProblemResponses implements DirectHandler {

    private static final Logger LOG = Logger.getLogger(ProblemResponses.class.getName());
    public static final HttpMediaType PROBLEM_JSON = HttpMediaType.create("application/problem+json");

    /** How long a caller waits before it sends a request again that met an unreachable database. */
    static final long RETRY_AFTER_UNAVAILABLE_SECONDS = 5;

    private final ObjectMapper mapper;
    private final SecurityHeaders headers;
    private final NmcMetrics metrics;
    private final java.util.function.UnaryOperator<String> versionOf;

    /** {@code versionOf}: the {@code API-Version} of an answer on a path, for the requests Helidon refuses itself. */
    public ProblemResponses(
            ObjectMapper mapper,
            SecurityHeaders headers,
            NmcMetrics metrics,
            java.util.function.UnaryOperator<String> versionOf) {
        this.mapper = mapper;
        this.headers = headers;
        this.metrics = metrics;
        this.versionOf = versionOf;
    }

    public void send(ServerRequest request, ServerResponse response, ProblemException problem) {
        send(request, response, problem.status(), problem, body(problem));
    }

    /**
     * A request that met an unreachable database (the wiring recognises it): not a fault of the NMC's code, and
     * nothing was changed, so a 503 the caller may retry, with one WARNING line instead of a stack trace.
     */
    public void sendUnavailable(ServerRequest request, ServerResponse response) {
        // the operation's template, never the path or method as sent: they may hold anything a client chose
        LOG.warning(() -> "database unreachable on " + ApiFilter.currentOperation() + ": answered 503");
        send(request, response, ProblemException.unavailable(RETRY_AFTER_UNAVAILABLE_SECONDS));
    }

    /** A 500 for an exception nobody expected. Logged with an id; the body says nothing about internals. */
    public void sendUnexpected(ServerRequest request, ServerResponse response, Throwable error) {
        String instance = "urn:uuid:" + UUID.randomUUID();
        LOG.log(Level.SEVERE, "unexpected error " + instance + " on " + ApiFilter.currentOperation(), error);
        ObjectNode body = mapper.createObjectNode();
        body.put("type", "about:blank");
        body.put("title", "Interne fout.");
        body.put("status", 500);
        body.put("detail", "Er ging iets mis in het NMC; meld het met de waarde van instance.");
        body.put("instance", instance);
        send(request, response, 500, null, body);
    }

    /**
     * A request Helidon refused itself. Its {@code message} is not used: it may quote the request. The connection
     * is closed after this answer either way (Helidon decides that).
     */
    @Override
    public TransportResponse handle(
            TransportRequest request,
            EventType eventType,
            Status status,
            ServerResponseHeaders responseHeaders,
            String message) {
        Status answered = status;
        if (eventType == EventType.INTERNAL_ERROR && request.method().isEmpty()) {
            // Before a request exists Helidon fails only on the client's bytes: a request line whose method is no
            // HTTP token (a "{" or a control character) escapes its parser as an IllegalArgumentException, which it
            // reports as an internal error. A request that cannot be read is the client's 400 (found by fuzzing).
            answered = Status.BAD_REQUEST_400;
        } else if (status.code() == Status.NOT_IMPLEMENTED_501.code()) {
            // A transfer coding Helidon does not implement (RFC 9112 §6.1 suggests 501): the client chose it, and
            // nothing a client can choose gets a 5xx here (found by fuzzing). A 505 for another HTTP version stays.
            answered = Status.BAD_REQUEST_400;
        }
        ProblemException problem = ProblemException.ofStatus(answered.code(), answered.reasonPhrase());
        metrics.apiProblem(ApiFilter.UNKNOWN_OPERATION, problem.type().toString(), answered.code());
        responseHeaders.set(HeaderNames.create("API-Version"), versionOf.apply(request.path()));
        headers.apply(responseHeaders);
        problem.headers().forEach((name, value) -> responseHeaders.set(HeaderNames.create(name), value));
        responseHeaders.contentType(PROBLEM_JSON);
        return TransportResponse.builder()
                .status(answered)
                .headers(responseHeaders)
                .entity(bytes(body(problem)))
                .build();
    }

    /** The problem's RFC 9457 body, as every answer carries it (also inside a bulk answer's items). */
    public ObjectNode body(ProblemException problem) {
        ObjectNode body = mapper.createObjectNode();
        body.put("type", problem.type().toString());
        body.put("title", problem.title());
        body.put("status", problem.status());
        body.put("detail", problem.detail());
        body.put("instance", "urn:uuid:" + UUID.randomUUID());
        if (!problem.errors().isEmpty()) {
            ArrayNode errors = body.putArray("errors");
            problem.errors()
                    .forEach(error -> errors.addObject()
                            .put("name", error.name())
                            .put("code", error.code())
                            .put("reason", error.reason()));
        }
        return body;
    }

    private void send(
            ServerRequest request, ServerResponse response, int status, ProblemException problem, ObjectNode body) {
        if (response.isSent()) {
            return;
        }
        response.status(Status.create(status));
        metrics.apiProblem(ApiFilter.currentOperation(), body.path("type").asText(), status);
        if (problem != null) {
            problem.headers().forEach((name, value) -> response.header(HeaderNames.create(name), value));
        }
        // A problem is never cached, also where the handler had meant its answer to be (the JWKS).
        headers.apply(response.headers());
        response.headers().contentType(PROBLEM_JSON);
        if (request.prologue().method().equals(Method.HEAD)) {
            // RFC 9110 §9.3.2: no content in an answer to HEAD. Helidon writes whatever it is given, and a client on a
            // kept-alive connection read the problem as the start of its next answer (found by a hostile read).
            response.send();
        } else {
            response.send(bytes(body));
        }
    }

    private byte[] bytes(ObjectNode body) {
        try {
            return mapper.writeValueAsBytes(body);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("cannot serialise a problem", e);
        }
    }
}
