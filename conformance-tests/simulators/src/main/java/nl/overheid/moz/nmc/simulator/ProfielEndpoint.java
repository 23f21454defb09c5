package nl.overheid.moz.nmc.simulator;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.extension.Parameters;
import com.github.tomakehurst.wiremock.extension.ResponseDefinitionTransformerV2;
import com.github.tomakehurst.wiremock.http.HttpHeader;
import com.github.tomakehurst.wiremock.http.HttpHeaders;
import com.github.tomakehurst.wiremock.http.Request;
import com.github.tomakehurst.wiremock.http.ResponseDefinition;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * One route of the simulated Profielservice as a WireMock response transformer. Every request goes through the
 * steps the real deployment would take it through:
 * <ol>
 *   <li>the FSC Outway ({@link FscOutway}), when configured;</li>
 *   <li>the service's JAX-RS matching, as far as the route needs it: {@code Content-Type} (415) and
 *       {@code Accept} (406) against what the operation consumes and produces ({@link #negotiate});</li>
 *   <li>the operation itself ({@link #handle}).</li>
 * </ol>
 * An answer of the service carries {@code API-Version} and the security headers of its
 * {@code SecurityHeadersFilter} (research notes §3.10), whatever its status. Each request is journaled as a
 * {@link ProfielserviceSimulator.Call} and logged as {@code <label> <status> <detail>}, where the label and
 * the detail hold method, route, ids, statuses and field names only: never an identifying number, an e-mail
 * address or anything else taken from the request that is not a UUID.
 *
 * <p>The answer is built {@linkplain ResponseDefinitionBuilder#like like} the stub that matched, so a test stub
 * that names the transformer keeps its own delay, dribble or fault: the simulator then acts on the request (a
 * delete takes effect) while the caller never sees the answer.
 */
abstract class ProfielEndpoint implements ResponseDefinitionTransformerV2 {

    static final String APPLICATION_JSON = "application/json";
    static final String PROBLEM_JSON = "application/problem+json";

    /** {@code SecurityHeadersFilter} of the real service, on every response it gives. */
    static final Map<String, String> SECURITY_HEADERS = securityHeaders();

    protected final ProfielContext context;
    private final String name;
    private final String operation;

    /**
     * @param name      the transformer name stubs refer to
     * @param operation the contract's {@code operationId}, or null for routes outside the contract
     */
    ProfielEndpoint(ProfielContext context, String name, String operation) {
        this.context = context;
        this.name = name;
        this.operation = operation;
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
        Instant receivedAt = context.clock().instant();
        String path = path(request.getUrl());
        String traceparent = header(request, "traceparent");
        String grantHash = header(request, FscOutway.GRANT_HASH_HEADER);
        String transactionId = header(request, FscOutway.TRANSACTION_ID_HEADER);
        Parameters parameters = serveEvent.getResponseDefinition().getTransformerParameters();

        Answer answer = context.fsc()
                .refusal(grantHash, transactionId)
                .orElseGet(() -> handle(request, path, parameters == null ? Parameters.empty() : parameters));

        context.addCall(new ProfielserviceSimulator.Call(
                operation,
                request.getMethod().getName(),
                path,
                traceparent,
                grantHash,
                transactionId,
                answer.status(),
                request.getBodyAsString(),
                receivedAt));
        boolean loggableTransaction = FscOutway.isUuid(transactionId);
        context.log(label(request, path) + " " + answer.status()
                + (answer.logDetail().isEmpty() ? "" : " " + answer.logDetail())
                + (loggableTransaction ? " fsc-transaction-id=" + transactionId : ""));

        List<HttpHeader> headers = new ArrayList<>();
        if (answer.contentType() != null) {
            headers.add(new HttpHeader("Content-Type", answer.contentType()));
        }
        if (answer.fromService()) {
            SECURITY_HEADERS.forEach((header, value) -> headers.add(new HttpHeader(header, value)));
            headers.add(new HttpHeader("API-Version", ProfielserviceSimulator.API_VERSION));
        }
        answer.headers().forEach((header, value) -> headers.add(new HttpHeader(header, value)));
        if (context.fsc().enabled() && FscOutway.isUuidV7(transactionId)) {
            headers.add(new HttpHeader(FscOutway.TRANSACTION_ID_HEADER, transactionId));
        }
        ResponseDefinitionBuilder response = ResponseDefinitionBuilder.like(serveEvent.getResponseDefinition())
                .but()
                .withStatus(answer.status())
                .withHeaders(new HttpHeaders(headers));
        if (answer.body() != null) {
            response.withBody(answer.body());
        }
        return response.build();
    }

    /**
     * Answers a request the Outway let through.
     *
     * @param path       the request path without its query
     * @param parameters the matching stub's transformer parameters
     */
    abstract Answer handle(Request request, String path, Parameters parameters);

    /** Method and route for the log line; never a value from the request other than a UUID. */
    abstract String label(Request request, String path);

    /**
     * The JAX-RS content negotiation of an operation that consumes {@code application/json}: a
     * {@code Content-Type} other than that is 415, an {@code Accept} none of whose ranges covers what the
     * operation produces is 406 (the service's {@code AcceptHeaderIntegrationTest}). A request without
     * {@code Content-Type} is read as JSON (what RESTEasy does then is not pinned by the service's tests; the
     * NMC always sends it).
     *
     * @param produces the media types the operation can answer in
     */
    static Optional<Answer> negotiate(Request request, String path, List<String> produces) {
        String contentType = header(request, "Content-Type");
        if (contentType != null && !mediaType(contentType).equals(APPLICATION_JSON)) {
            return Optional.of(
                    problem(415, "Unsupported Media Type", null, path, Map.of(), "unsupported Content-Type"));
        }
        HttpHeader accept = request.header("Accept");
        if (accept.isPresent() && !acceptable(String.join(",", accept.values()), produces)) {
            return Optional.of(problem(
                    406,
                    "Not Acceptable",
                    null,
                    path,
                    Map.of(),
                    "Accept covers none of " + String.join(", ", produces)));
        }
        return Optional.empty();
    }

    /** Whether an {@code Accept} value has a range (not weighted {@code q=0}) that covers one of {@code produces}. */
    static boolean acceptable(String accept, List<String> produces) {
        if (accept.isBlank()) {
            return true;
        }
        for (String part : accept.split(",")) {
            String[] pieces = part.split(";");
            String range = pieces[0].strip().toLowerCase(Locale.ROOT);
            boolean refused = Arrays.stream(pieces)
                    .skip(1)
                    .map(piece -> piece.replace(" ", ""))
                    .anyMatch(piece -> piece.matches("(?i)q=0(\\.0{0,3})?"));
            if (range.isEmpty() || refused) {
                continue;
            }
            for (String mediaType : produces) {
                if (range.equals("*/*")
                        || range.equals(mediaType)
                        || (range.endsWith("/*") && mediaType.startsWith(range.substring(0, range.length() - 1)))) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * A problem as the real service's quarkiverse {@code HttpProblem} serialises it: no {@code type} (RFC 9457:
     * absent is {@code about:blank}), then {@code status}, {@code title}, {@code detail} and {@code instance} when
     * set, then the extra members.
     */
    static Answer problem(
            int status, String title, String detail, String instance, Map<String, Object> extra, String logDetail) {
        Map<String, Object> document = JsonText.object("status", status, "title", title);
        if (detail != null) {
            document.put("detail", detail);
        }
        if (instance != null) {
            document.put("instance", instance);
        }
        document.putAll(extra);
        return new Answer(status, PROBLEM_JSON, JsonText.write(document), Map.of(), true, logDetail);
    }

    static String header(Request request, String name) {
        HttpHeader header = request.header(name);
        return header.isPresent() ? header.firstValue() : null;
    }

    private static String mediaType(String contentType) {
        return contentType.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
    }

    private static String path(String url) {
        int query = url.indexOf('?');
        return query < 0 ? url : url.substring(0, query);
    }

    private static Map<String, String> securityHeaders() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Cache-Control", "no-store");
        headers.put("Content-Security-Policy", "frame-ancestors 'none'");
        headers.put("Strict-Transport-Security", "max-age=31536000; includeSubDomains");
        headers.put("X-Content-Type-Options", "nosniff");
        headers.put("X-Frame-Options", "DENY");
        headers.put("Referrer-Policy", "no-referrer");
        return Map.copyOf(headers);
    }

    /**
     * What the simulator answers.
     *
     * @param contentType null for an answer without a body (204)
     * @param fromService whether the Profielservice gave it (with its {@code API-Version} and security headers)
     *                    rather than the FSC Outway in front of it
     * @param logDetail   ids, outcomes, field names and error codes only; never a value of the request
     */
    record Answer(
            int status,
            String contentType,
            String body,
            Map<String, String> headers,
            boolean fromService,
            String logDetail) {

        static Answer json(int status, String body, String logDetail) {
            return new Answer(status, APPLICATION_JSON, body, Map.of(), true, logDetail);
        }

        static Answer noContent(String logDetail) {
            return new Answer(204, null, null, Map.of(), true, logDetail);
        }

        /** An error of the FSC Outway: {@code Fsc-Error-Code}, a JSON body, none of the service's headers. */
        static Answer outway(int status, String body, String code) {
            return new Answer(
                    status,
                    APPLICATION_JSON,
                    body,
                    Map.of(FscOutway.ERROR_CODE_HEADER, code),
                    false,
                    "fsc-error-code=" + code);
        }

        Answer withHeader(String header, String value) {
            Map<String, String> more = new LinkedHashMap<>(headers);
            more.put(header, value);
            return new Answer(status, contentType, body, Map.copyOf(more), fromService, logDetail);
        }
    }
}
