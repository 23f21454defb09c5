package nl.overheid.moz.nmc.api;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import io.helidon.common.buffers.DataReader;
import io.helidon.common.media.type.MediaTypes;
import io.helidon.http.HttpMediaType;
import io.helidon.webserver.http.ServerRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Optional;

/**
 * Reads a JSON request body: {@code application/json} (else 415), bounded in size (else 413), parsed, validated
 * against the contract's schema with all errors at once, and only then bound to the generated model. Whatever
 * else is wrong with the body becomes a 400 problem; nothing reaches the domain before the body is valid. A body
 * refused for its declared size is left to Helidon, which reads and discards the rest up to
 * {@code server.max-payload-size} after the answer; a chunked one found too large while read is read on and discarded
 * (to the same limit) before it. Either way a client still sending sees the 413 rather than a broken connection.
 */
public final class JsonBodies {

    private final ObjectMapper mapper;
    private final RequestSchemas schemas;
    private final int maxBytes;

    public JsonBodies(ObjectMapper mapper, RequestSchemas schemas, int maxBytes) {
        this.mapper = strict(mapper);
        this.schemas = schemas;
        this.maxBytes = maxBytes;
    }

    /**
     * A copy of {@code mapper} that reads request bodies: anything after the body's one value, and a name given twice
     * in one object, are syntax errors. RFC 8259 leaves both to the reader; read leniently, {@code {..} xx} was taken
     * as a valid notification, and of two {@code dvRef}s the last counted, where a gateway or a DV's own log may read
     * the first: a body that means two things is refused rather than guessed at. Unknown fields are ignored after
     * schema validation.
     */
    static ObjectMapper strict(ObjectMapper mapper) {
        return mapper.copy()
                .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
                .configure(DeserializationFeature.FAIL_ON_TRAILING_TOKENS, true)
                .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    }

    /** The 400 of a body that is not one JSON value, or names a field twice in one object. */
    static ProblemException syntax() {
        return ProblemException.invalid(
                "/", "syntax", "Het verzoek is geen geldige JSON, of noemt een veld twee keer in één object.");
    }

    public <T> T read(ServerRequest request, String schemaName, Class<T> type) {
        JsonNode tree = tree(request);
        List<ProblemException.FieldError> errors = errors(schemaName, tree, "");
        if (!errors.isEmpty()) {
            throw ProblemException.invalid(errors);
        }
        return bind(tree, type);
    }

    /**
     * The body as JSON, after the media-type (415), size (413) and syntax (400) checks but before any schema:
     * for a body whose parts are validated one by one (a bulk request).
     */
    public JsonNode tree(ServerRequest request) {
        byte[] body = bytes(request);
        JsonNode tree;
        try {
            tree = mapper.readTree(body);
        } catch (IOException e) {
            throw syntax();
        }
        if (tree == null || tree.isMissingNode()) {
            throw syntax();
        }
        return tree;
    }

    /**
     * The body's bytes, after the media-type (415) and size (413) checks; for a body read by a parser of its own (a
     * bulk request's, {@link BulkBody}).
     */
    public byte[] bytes(ServerRequest request) {
        if (!request.content().hasEntity()) {
            throw ProblemException.invalid("/", "required", "Het verzoek heeft geen inhoud.");
        }
        if (!isJson(request)) {
            throw ProblemException.unsupportedMediaType();
        }
        if (request.headers().contentLength().orElse(0) > maxBytes) {
            throw ProblemException.tooLarge(maxBytes);
        }
        byte[] bytes = readBounded(request);
        if (notUtf8(bytes)) {
            throw ProblemException.unsupportedMediaType();
        }
        return bytes;
    }

    /**
     * A body in UTF-16 or UTF-32 (a byte-order mark, or a zero byte among its first four, which a JSON text in UTF-8
     * never has: RFC 8259 §8.1, RFC 4627 §3). Jackson detects and reads those, so such a body was taken while the
     * contract and whatever logs the bytes read UTF-8 (found by a hostile read).
     */
    private static boolean notUtf8(byte[] bytes) {
        if (bytes.length >= 2
                && ((bytes[0] == (byte) 0xFE && bytes[1] == (byte) 0xFF)
                        || (bytes[0] == (byte) 0xFF && bytes[1] == (byte) 0xFE))) {
            return true;
        }
        for (int i = 0; i < Math.min(4, bytes.length); i++) {
            if (bytes[i] == 0) {
                return true;
            }
        }
        return false;
    }

    /** The mapper the bodies are parsed and bound with. */
    ObjectMapper mapper() {
        return mapper;
    }

    /** What is wrong with {@code node} against the contract's schema, named from {@code pointer} on. */
    public List<ProblemException.FieldError> errors(String schemaName, JsonNode node, String pointer) {
        return schemas.validate(schemaName, node).stream()
                .map(error -> new ProblemException.FieldError(
                        JsonPointers.under(pointer, error.name()), error.code(), error.reason()))
                .toList();
    }

    /** A schema-valid tree as the generated model. */
    public <T> T bind(JsonNode tree, Class<T> type) {
        try {
            return mapper.treeToValue(tree, type);
        } catch (InvalidFormatException e) {
            // A value the schema's format check lets through that its Java type does not read: networknt takes
            // "https://", "x:" or "//" as a uri, java.net.URI does not. The client's 400, its value not quoted.
            throw ProblemException.invalid(
                    pointer(e), "format", "De waarde heeft niet de vorm die het contract vraagt.");
        } catch (JsonProcessingException e) {
            // The schema accepted it, so the model is stricter than the contract: a bug, not bad input. Jackson's
            // message quotes the offending value, which may be personal data: only where it failed is kept.
            throw new IllegalStateException("schema-valid body does not bind to " + type.getSimpleName() + " at "
                    + (e instanceof com.fasterxml.jackson.databind.JsonMappingException mapping
                            ? mapping.getPathReference()
                            : "?"));
        }
    }

    /** Where a binding failed, as a JSON pointer into the body. */
    private static String pointer(InvalidFormatException e) {
        StringBuilder pointer = new StringBuilder();
        for (com.fasterxml.jackson.databind.JsonMappingException.Reference step : e.getPath()) {
            pointer.append('/')
                    .append(
                            step.getFieldName() != null
                                    ? JsonPointers.escape(step.getFieldName())
                                    : String.valueOf(step.getIndex()));
        }
        return pointer.isEmpty() ? "/" : pointer.toString();
    }

    /** {@code application/json}, in UTF-8 if a charset is named (RFC 8259 allows no other). */
    private static boolean isJson(ServerRequest request) {
        Optional<HttpMediaType> declared;
        try {
            declared = request.headers().contentType();
        } catch (RuntimeException unparsable) {
            // Helidon cannot parse it ("application/json;", "json", an empty value; 'charset="' escapes its parser as
            // an index out of bounds): not JSON either, the 415
            return false;
        }
        return declared.filter(type -> type.mediaType().text().equalsIgnoreCase(MediaTypes.APPLICATION_JSON.text()))
                .filter(type -> type.charset()
                        .map(charset -> charset.equalsIgnoreCase("utf-8"))
                        .orElse(true))
                .isPresent();
    }

    private byte[] readBounded(ServerRequest request) {
        InputStream in = request.content().inputStream();
        try {
            byte[] bytes = readAll(in, request.headers().contentLength().orElse(-1));
            in.close();
            return bytes;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (DataReader.InsufficientDataAvailableException
                | DataReader.IncorrectNewLineException
                | IllegalArgumentException e) {
            // The client's framing, not the NMC's fault (found by fuzzing): a body that ends before its
            // Content-Length or its last chunk, a chunk size that is no hex number, a chunk line with a bare CR.
            // These escaped as a 500 and a SEVERE line per request. The rest of the connection's bytes cannot be read
            // as requests, so the answer closes it, and the stream is not closed first: closing reads the rest of the
            // body, and after a broken chunk line it reads the next bytes as one ("abc" asks for 2,748 more), so a
            // client that kept its connection open got no answer at all (found against a local run).
            throw ProblemException.framing();
        } catch (ProblemException tooLarge) {
            try {
                in.close(); // reads and discards the rest, up to server.max-payload-size
            } catch (IOException | RuntimeException e) {
                tooLarge.addSuppressed(e);
            }
            throw tooLarge;
        }
    }

    private byte[] readAll(InputStream in, long declared) throws IOException {
        if (declared >= 0) {
            // Read into one array of the declared size: readNBytes(int) gathers 16 KB buffers and copies them,
            // twice the body in garbage, and buffers that outlive a young collection while a slow client sends
            // are copied by it (a 4 MB bulk body's array is allocated outside the young generation).
            byte[] bytes = new byte[Math.toIntExact(declared)];
            if (in.readNBytes(bytes, 0, bytes.length) < bytes.length) {
                throw new DataReader.InsufficientDataAvailableException();
            }
            return bytes;
        }
        byte[] bytes = in.readNBytes(maxBytes + 1);
        if (bytes.length > maxBytes) {
            throw ProblemException.tooLarge(maxBytes);
        }
        return bytes;
    }
}
