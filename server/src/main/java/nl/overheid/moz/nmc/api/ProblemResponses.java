package nl.overheid.moz.nmc.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.helidon.http.HeaderNames;
import io.helidon.http.HttpMediaType;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Writes RFC 9457 problems. Helidon's Jackson support will not write {@code application/problem+json}, so
 * the bytes are serialised here. Unexpected exceptions become a bare 500 with an instance id that is also
 * logged, so an operator can find the stack trace; the problem carries no internals.
 */
public final class ProblemResponses {

    private static final Logger LOG = Logger.getLogger(ProblemResponses.class.getName());
    public static final HttpMediaType PROBLEM_JSON = HttpMediaType.create("application/problem+json");

    private final ObjectMapper mapper;

    public ProblemResponses(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    public void send(ServerResponse response, ProblemException problem) {
        ObjectNode body = mapper.createObjectNode();
        body.put("type", problem.type().toString());
        body.put("title", problem.title());
        body.put("status", problem.status());
        body.put("detail", problem.detail());
        body.put("instance", "urn:uuid:" + UUID.randomUUID());
        if (!problem.errors().isEmpty()) {
            ArrayNode errors = body.putArray("errors");
            problem.errors().forEach(error -> errors.addObject()
                    .put("name", error.name())
                    .put("code", error.code())
                    .put("reason", error.reason()));
        }
        send(response, problem.status(), problem, body);
    }

    /** A 500 for an exception nobody expected. Logged with an id; the body says nothing about internals. */
    public void sendUnexpected(ServerRequest request, ServerResponse response, Throwable error) {
        String instance = "urn:uuid:" + UUID.randomUUID();
        LOG.log(Level.SEVERE, "unexpected error " + instance + " on " + request.prologue().method().text()
                + " " + request.path().path(), error);
        ObjectNode body = mapper.createObjectNode();
        body.put("type", "about:blank");
        body.put("title", "Interne fout.");
        body.put("status", 500);
        body.put("detail", "Er ging iets mis in het NMC; meld het met de waarde van instance.");
        body.put("instance", instance);
        send(response, 500, null, body);
    }

    private void send(ServerResponse response, int status, ProblemException problem, ObjectNode body) {
        if (response.isSent()) {
            return;
        }
        response.status(Status.create(status));
        if (problem != null) {
            problem.headers().forEach((name, value) -> response.header(HeaderNames.create(name), value));
        }
        response.headers().contentType(PROBLEM_JSON);
        try {
            response.send(mapper.writeValueAsString(body).getBytes(StandardCharsets.UTF_8));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("cannot serialise a problem", e);
        }
    }
}
