package nl.overheid.moz.nmc.simulator;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.extension.ResponseDefinitionTransformerV2;
import com.github.tomakehurst.wiremock.http.HttpHeader;
import com.github.tomakehurst.wiremock.http.HttpHeaders;
import com.github.tomakehurst.wiremock.http.Request;
import com.github.tomakehurst.wiremock.http.ResponseDefinition;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * One operation of the Profielservice or LDV contract as a WireMock response transformer. Every request goes
 * through the same steps, as a contract-strict server would:
 * <ol>
 *   <li>{@code Authorization: Bearer <token>} with the configured token, else 401 ({@code niet-geauthenticeerd},
 *       with {@code WWW-Authenticate: Bearer});</li>
 *   <li>the optional {@code traceparent} header against the contract's pattern, the {@code Content-Type}, the
 *       body as JSON and against the operation's request schema: every violation at once in one 400
 *       ({@code ongeldige-invoer}, {@code errors[]});</li>
 *   <li>the subclass answers the valid request.</li>
 * </ol>
 * Every response carries {@code API-Version}. Each request is recorded as a {@link ReceivedCall} and logged as
 * {@code <METHOD path> <status> <detail>}, where the detail holds ids, outcomes and error codes only.
 *
 * <p>The answer is built {@linkplain ResponseDefinitionBuilder#like like} the stub that matched, so a test stub
 * that names this transformer keeps its own delay or fault: the simulator then acts on the request (stores the
 * record, the report) while the caller never sees the answer.
 */
abstract class ContractEndpoint implements ResponseDefinitionTransformerV2 {

    /** The contracts' {@code traceparent} parameter pattern. */
    private static final String TRACEPARENT_PATTERN = "^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$";

    private static final Pattern TRACEPARENT = Pattern.compile("[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}");

    protected final ContractService service;
    private final String name;
    private final String label;
    private final String operation;
    private final ContractSchema requestSchema;

    /**
     * @param name          the transformer name stubs refer to
     * @param label         method and path for log lines, e.g. {@code POST /contactgegevens/opvragingen}
     * @param operation     the contract's {@code operationId}
     * @param requestSchema the request body's schema
     */
    ContractEndpoint(
            ContractService service, String name, String label, String operation, ContractSchema requestSchema) {
        this.service = service;
        this.name = name;
        this.label = label;
        this.operation = operation;
        this.requestSchema = requestSchema;
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
        Instant receivedAt = service.clock().instant();
        HttpHeader traceHeader = request.header("traceparent");
        String traceparent = traceHeader.isPresent() ? traceHeader.firstValue() : null;
        Answer answer = answer(request, traceparent);
        service.calls().add(new ReceivedCall(operation, traceparent, answer.status(), receivedAt));
        service.log(label + " " + answer.status() + (answer.logDetail().isEmpty() ? "" : " " + answer.logDetail()));

        List<HttpHeader> headers = new ArrayList<>();
        headers.add(new HttpHeader("Content-Type", answer.contentType()));
        headers.add(new HttpHeader("API-Version", service.apiVersion()));
        answer.headers().forEach((header, value) -> headers.add(new HttpHeader(header, value)));
        return ResponseDefinitionBuilder.like(serveEvent.getResponseDefinition())
                .but()
                .withStatus(answer.status())
                .withHeaders(new HttpHeaders(headers))
                .withBody(answer.body())
                .build();
    }

    @SuppressWarnings("unchecked")
    private Answer answer(Request request, String traceparent) {
        Optional<String> refused = service.refusal(request.header("Authorization"));
        if (refused.isPresent()) {
            return problem(
                            401,
                            "niet-geauthenticeerd",
                            "Niet geauthenticeerd.",
                            "Het access token ontbreekt of is ongeldig.",
                            List.of(),
                            "(" + refused.get() + ")")
                    .withHeader("WWW-Authenticate", "Bearer");
        }
        List<FieldError> errors = new ArrayList<>();
        if (traceparent != null && !TRACEPARENT.matcher(traceparent).matches()) {
            errors.add(new FieldError(
                    "traceparent", "pattern", "Voldoet niet aan het patroon " + TRACEPARENT_PATTERN + "."));
        }
        Object body = null;
        switch (RequestBodies.read(request)) {
            case RequestBodies.Unreadable unreadable -> errors.addAll(unreadable.errors());
            case RequestBodies.Value value -> {
                errors.addAll(requestSchema.validate(value.value()));
                body = value.value();
            }
        }
        if (!errors.isEmpty()) {
            return problem(
                    400,
                    "ongeldige-invoer",
                    "De invoer is ongeldig.",
                    Problems.countDetail(errors.size()),
                    errors,
                    errors.stream()
                            .map(error -> error.name() + ":" + error.code())
                            .collect(Collectors.joining(" ")));
        }
        return handle((Map<String, Object>) body, traceparent);
    }

    /**
     * Answers a request that is authorised and valid against the contract.
     *
     * @param body        the request body, valid against the operation's schema
     * @param traceparent the valid {@code traceparent} header, or null
     */
    abstract Answer handle(Map<String, Object> body, String traceparent);

    /** A problem of this service; {@code slug} completes the problem type URI. */
    final Answer problem(
            int status, String slug, String title, String detail, List<FieldError> errors, String logDetail) {
        return new Answer(
                status,
                Problems.PROBLEM_JSON,
                Problems.json(service.problemType(slug), title, status, detail, errors),
                Map.of(),
                logDetail);
    }

    /** A JSON answer. */
    static Answer json(int status, String body, String logDetail) {
        return new Answer(status, "application/json", body, Map.of(), logDetail);
    }

    /**
     * What the simulator answers.
     *
     * @param logDetail ids, outcomes and error codes only; never a value of the request
     */
    record Answer(int status, String contentType, String body, Map<String, String> headers, String logDetail) {

        Answer withHeader(String header, String value) {
            Map<String, String> more = new LinkedHashMap<>(headers);
            more.put(header, value);
            return new Answer(status, contentType, body, Map.copyOf(more), logDetail);
        }
    }
}
