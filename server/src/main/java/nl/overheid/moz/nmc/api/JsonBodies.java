package nl.overheid.moz.nmc.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.ServerRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * Reads a JSON request body: bounded in size, parsed, validated against the contract's schema with all
 * errors at once, and only then bound to the generated model. Whatever is wrong with the body becomes a 400
 * problem; nothing reaches the domain before the body is valid.
 */
public final class JsonBodies {

    private final ObjectMapper mapper;
    private final RequestSchemas schemas;
    private final int maxBytes;

    public JsonBodies(ObjectMapper mapper, RequestSchemas schemas, int maxBytes) {
        this.mapper = mapper.copy().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
        this.schemas = schemas;
        this.maxBytes = maxBytes;
    }

    public <T> T read(ServerRequest request, String schemaName, Class<T> type) {
        String contentType = request.headers().value(HeaderNames.CONTENT_TYPE).orElse("");
        if (!contentType.isEmpty() && !contentType.toLowerCase(java.util.Locale.ROOT).startsWith("application/json")) {
            throw ProblemException.invalid("Content-Type", "mediaType", "Het verzoek moet application/json zijn.");
        }
        if (!request.content().hasEntity()) {
            throw ProblemException.invalid("/", "required", "Het verzoek heeft geen inhoud.");
        }
        byte[] body = readBounded(request);
        JsonNode tree;
        try {
            tree = mapper.readTree(body);
        } catch (IOException e) {
            throw ProblemException.invalid("/", "syntax", "Het verzoek is geen geldige JSON.");
        }
        if (tree == null || tree.isMissingNode()) {
            throw ProblemException.invalid("/", "syntax", "Het verzoek is geen geldige JSON.");
        }
        List<ProblemException.FieldError> errors = schemas.validate(schemaName, tree);
        if (!errors.isEmpty()) {
            throw ProblemException.invalid(errors);
        }
        try {
            return mapper.treeToValue(tree, type);
        } catch (JsonProcessingException e) {
            // The schema accepted it, so the model is stricter than the contract: a bug, not bad input.
            throw new IllegalStateException("schema-valid body does not bind to " + type.getSimpleName(), e);
        }
    }

    private byte[] readBounded(ServerRequest request) {
        try (InputStream in = request.content().inputStream()) {
            byte[] bytes = in.readNBytes(maxBytes + 1);
            if (bytes.length > maxBytes) {
                throw ProblemException.invalid("/", "maxSize",
                        "Het verzoek is groter dan " + maxBytes + " bytes.");
            }
            return bytes;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
