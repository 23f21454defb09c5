package nl.overheid.moz.nmc.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/**
 * A small raw-HTTP client for black-box tests: what a DV or NotifyNL would send, byte for byte. Paths under
 * {@code /observe} go to the management port when one is given (an NMC serves them there, not on the API port).
 */
public final class Http {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private final HttpClient client =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String baseUrl;
    private final String managementUrl;

    /** Everything, {@code /observe} too, to {@code baseUrl}. */
    public Http(String baseUrl) {
        this(baseUrl, baseUrl);
    }

    public Http(String baseUrl, String managementUrl) {
        this.baseUrl = baseUrl;
        this.managementUrl = managementUrl;
    }

    /** The API and the management port of an NMC in this JVM. */
    public static Http of(nl.overheid.moz.nmc.Nmc nmc) {
        return new Http("http://127.0.0.1:" + nmc.port(), "http://127.0.0.1:" + nmc.managementPort());
    }

    public String baseUrl() {
        return baseUrl;
    }

    /** A response with its body parsed as JSON when it is JSON. */
    public record Response(int status, java.net.http.HttpHeaders headers, String body) {

        public JsonNode json() {
            try {
                return MAPPER.readTree(body);
            } catch (IOException e) {
                throw new UncheckedIOException("not JSON: " + body, e);
            }
        }

        public Optional<String> header(String name) {
            return headers.firstValue(name);
        }

        public String contentType() {
            return header("Content-Type").orElse("");
        }
    }

    public Response get(String path, String token) {
        return send(builder(path, token).GET());
    }

    public Response delete(String path, String token) {
        return send(builder(path, token).DELETE());
    }

    public Response post(String path, String token, String json) {
        return send(builder(path, token)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    public Response put(String path, String token, String json) {
        return send(builder(path, token)
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(json)));
    }

    /** Any method, with a body of any type when {@code body} is not null. */
    public Response request(String method, String path, String token, String contentType, String body) {
        HttpRequest.Builder builder = builder(path, token);
        if (contentType != null) {
            builder.header("Content-Type", contentType);
        }
        return send(builder.method(
                method,
                body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body)));
    }

    private HttpRequest.Builder builder(String path, String token) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(
                        URI.create((path.startsWith("/observe") ? managementUrl : baseUrl) + path))
                .timeout(Duration.ofSeconds(20));
        if (token != null) {
            builder.header("Authorization", "Bearer " + token);
        }
        return builder;
    }

    private Response send(HttpRequest.Builder builder) {
        try {
            HttpResponse<String> response = client.send(builder.build(), HttpResponse.BodyHandlers.ofString());
            return new Response(response.statusCode(), response.headers(), response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public static String json(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The value of one metric in the Prometheus text at /observe/metrics; empty when it is absent. */
    public java.util.OptionalDouble metric(String name) {
        return metric(name, "");
    }

    /** The value of the first series of a metric whose labels contain {@code label} (e.g. {@code dv="…"}). */
    public java.util.OptionalDouble metric(String name, String label) {
        Response metrics = get("/observe/metrics", null);
        if (metrics.status() != 200) {
            throw new IllegalStateException("metrics answered " + metrics.status());
        }
        java.util.regex.Matcher line = java.util.regex.Pattern.compile("(?m)^" + java.util.regex.Pattern.quote(name)
                        + "(\\{[^}]*" + java.util.regex.Pattern.quote(label) + "[^}]*})?\\s+(\\S+)$")
                .matcher(metrics.body());
        return line.find()
                ? java.util.OptionalDouble.of(Double.parseDouble(line.group(2)))
                : java.util.OptionalDouble.empty();
    }
}
