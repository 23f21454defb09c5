package nl.overheid.moz.nmc.simulator;

import com.github.tomakehurst.wiremock.common.Json;
import com.github.tomakehurst.wiremock.http.HttpHeader;
import com.github.tomakehurst.wiremock.http.Request;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reads a JSON request body for the contract endpoints, or says in {@link FieldError}s why it cannot: a
 * {@code Content-Type} other than {@code application/json} ({@code mediaType}), no body ({@code required}),
 * text that is not JSON ({@code syntax}). Any JSON value parses (an array or a scalar is the schema's
 * {@code type} error to report). Parsing goes through WireMock's public {@link Json} helper, never through the
 * Jackson classes WireMock shades.
 */
final class RequestBodies {

    private RequestBodies() {}

    /** The parsed body, or the errors that stop it from being read. */
    sealed interface Parsed {}

    /** A JSON value: {@link Map}, {@link List}, {@link String}, {@link Number}, {@link Boolean} or null. */
    record Value(Object value) implements Parsed {}

    record Unreadable(List<FieldError> errors) implements Parsed {}

    static Parsed read(Request request) {
        HttpHeader contentType = request.header("Content-Type");
        if (contentType.isPresent() && !isJson(contentType.firstValue())) {
            return new Unreadable(
                    List.of(new FieldError("Content-Type", "mediaType", "Het verzoek moet application/json zijn.")));
        }
        String text = request.getBodyAsString();
        if (text == null || text.isBlank()) {
            return new Unreadable(List.of(new FieldError("/", "required", "Het verzoek heeft geen inhoud.")));
        }
        try {
            return new Value(Json.read(text, Object.class));
        } catch (RuntimeException malformed) {
            return new Unreadable(List.of(new FieldError("/", "syntax", "Het verzoek is geen geldige JSON.")));
        }
    }

    private static boolean isJson(String contentType) {
        String mediaType = contentType.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
        return mediaType.equals("application/json");
    }
}
