package nl.overheid.moz.nmc.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.atlassian.oai.validator.OpenApiInteractionValidator;
import com.atlassian.oai.validator.model.Request;
import com.atlassian.oai.validator.model.SimpleRequest;
import com.atlassian.oai.validator.model.SimpleResponse;
import com.atlassian.oai.validator.report.ValidationReport;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Plain java.net.http calls to a simulator, and an independent oracle for its contract: Atlassian's
 * swagger-request-validator over the published document in {@code api-spec/}, so the simulators are checked
 * against the contract by code they do not share.
 */
final class SimulatorHttp {

    static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CLIENT =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private SimulatorHttp() {}

    /** A request to send: POST by default, {@code Content-Type: application/json} unless replaced or removed. */
    static final class Call {
        final String rootUrl;
        final String path;
        String method = "POST";
        String body = "";
        final Map<String, String> headers = new LinkedHashMap<>();

        Call(String rootUrl, String path) {
            this.rootUrl = rootUrl;
            this.path = path;
            headers.put("Content-Type", "application/json");
        }

        Call method(String method) {
            this.method = method;
            return this;
        }

        Call body(String body) {
            this.body = body;
            return this;
        }

        Call bearer(String token) {
            return header("Authorization", "Bearer " + token);
        }

        /** Sets a header; null removes it. */
        Call header(String name, String value) {
            if (value == null) {
                headers.remove(name);
            } else {
                headers.put(name, value);
            }
            return this;
        }

        Response send() {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(rootUrl + path))
                    .timeout(Duration.ofSeconds(10))
                    .method(
                            method,
                            body.isEmpty()
                                    ? HttpRequest.BodyPublishers.noBody()
                                    : HttpRequest.BodyPublishers.ofString(body));
            headers.forEach(request::header);
            try {
                return new Response(CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        /** The same request for the oracle. */
        com.atlassian.oai.validator.model.Request forOracle() {
            SimpleRequest.Builder request = new SimpleRequest.Builder(Request.Method.valueOf(method), path);
            if (!body.isEmpty()) {
                request.withBody(body);
            }
            headers.forEach(request::withHeader);
            return request.build();
        }
    }

    record Response(HttpResponse<String> raw) {
        int status() {
            return raw.statusCode();
        }

        String body() {
            return raw.body();
        }

        Optional<String> header(String name) {
            return raw.headers().firstValue(name);
        }

        JsonNode json() {
            try {
                return JSON.readTree(raw.body());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** {@code [name, code]} of every entry of a problem's {@code errors}. */
        List<List<String>> errors() {
            return java.util.stream.StreamSupport.stream(json().path("errors").spliterator(), false)
                    .map(error -> List.of(
                            error.path("name").asText(), error.path("code").asText()))
                    .toList();
        }
    }

    /** The published contract, read from {@code api-spec/} (found from the working directory upwards). */
    static final class Oracle {
        private final OpenApiInteractionValidator validator;

        Oracle(String document) {
            Path dir = Path.of("").toAbsolutePath();
            while (dir != null && !Files.exists(dir.resolve("api-spec").resolve(document))) {
                dir = dir.getParent();
            }
            try {
                validator = OpenApiInteractionValidator.createForInlineApiSpecification(
                                Files.readString(dir.resolve("api-spec").resolve(document)))
                        .build();
            } catch (IOException | NullPointerException e) {
                throw new IllegalStateException("cannot read api-spec/" + document, e);
            }
        }

        /** The oracle's complaints about a request; empty when it conforms. */
        List<String> requestErrors(Call call) {
            return messages(validator.validateRequest(call.forOracle()));
        }

        /** The oracle's complaints about a response to this call; empty when the contract declares it. */
        List<String> responseErrors(Call call, Response response) {
            SimpleResponse.Builder published =
                    SimpleResponse.Builder.status(response.status()).withBody(response.body());
            response.raw().headers().map().forEach(published::withHeader);
            return messages(
                    validator.validateResponse(call.path, Request.Method.valueOf(call.method), published.build()));
        }

        /** Asserts that the response, headers included, is one the contract declares for this call. */
        Response conforming(Call call, Response response) {
            List<String> complaints = responseErrors(call, response);
            assertThat(complaints)
                    .as(call.method + " " + call.path + " " + response.status() + " conforms to the contract")
                    .isEmpty();
            assertThat(response.header("API-Version")).contains("1.0.0");
            return response;
        }

        private static List<String> messages(ValidationReport report) {
            return report.getMessages().stream()
                    .filter(message -> message.getLevel() == ValidationReport.Level.ERROR)
                    .map(message -> message.getKey() + ": " + message.getMessage())
                    .toList();
        }
    }
}
