package nl.overheid.moz.nmc.sending;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.helidon.security.jwt.Jwt;
import io.helidon.security.jwt.SignedJwt;
import io.helidon.security.jwt.jwk.JwkOctet;
import jakarta.json.Json;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.outbound.BoundedHttpClient;
import nl.overheid.moz.nmc.trace.FailedCalls;
import nl.overheid.moz.nmc.trace.Span;

/**
 * {@link NotifyNl} of one NotifyNL service on {@code java.net.http}: NotifyNL's v2 API with its JWT scheme
 * (HS256, {@code iss} = the service's id, {@code iat} = now to the second, signed with its key's secret and reused for
 * at most five seconds; helidon-security-jwt), the
 * calls of {@code api-spec/notifynl.yaml}. Hand-written because GOV.UK Notify's official Java client cannot carry the
 * {@code traceparent} header (its connection factory is package-private) and sets its time-outs JVM-wide; this one
 * runs over a {@link BoundedHttpClient} (the whole exchange within {@code notifynl.read-timeout}, an answer of at
 * most {@code notifynl.max-answer-bytes}), follows no redirects, never repeats a POST, and classifies every answer
 * with {@link NotifyNlAnswers}, keeping only its class (NotifyNL's error text may quote the address). Every failed
 * call is logged at WARNING with its status or reason and its trace ({@link FailedCalls}); a refusal of the setup
 * or the daily limit is logged by the send pipeline, which knows the berichttype.
 */
public final class NotifyNlClient implements NotifyNl {

    private static final Logger LOG = Logger.getLogger(NotifyNlClient.class.getName());
    private static final String SEND = "NotifyNL POST /v2/notifications/email";
    private static final String LOOKUP = "NotifyNL GET /v2/notifications";
    private static final String TEMPLATE = "NotifyNL GET /v2/template/{id}";
    private final NotifyNlSettings settings;
    private final NotifyNlSettings.Service service;
    /** The credential a 401 or 403 points at: this service's key. */
    private final String credential;
    /** Protocol time, not the NMC's business clock: NotifyNL checks {@code iat} against its own clock. */
    private final Clock wallClock;

    private final URI base;
    private final JwkOctet key;
    private final HttpClient http;
    private final ObjectMapper mapper = new ObjectMapper();
    private final AtomicReference<Token> token = new AtomicReference<>();

    public NotifyNlClient(NotifyNlSettings settings, NotifyNlSettings.Service service) {
        this(settings, service, Clock.systemUTC());
    }

    /** With the wall clock its tokens' {@code iat} is read from (a test's). */
    NotifyNlClient(NotifyNlSettings settings, NotifyNlSettings.Service service, Clock wallClock) {
        this.wallClock = wallClock;
        this.settings = settings;
        this.service = service;
        this.credential = "notifynl.services." + service.name() + ".api-key";
        this.base = URI.create(settings.baseUrl().replaceAll("/+$", ""));
        this.key = JwkOctet.create(Json.createObjectBuilder()
                .add("kty", "oct")
                .add("alg", JwkOctet.ALG_HS256)
                .add("kid", service.serviceId())
                .add(
                        "k",
                        Base64.getUrlEncoder()
                                .withoutPadding()
                                .encodeToString(service.secret().getBytes(StandardCharsets.UTF_8)))
                .build());
        this.http = BoundedHttpClient.create(
                "notifynl", settings.connectTimeout(), settings.readTimeout(), settings.maxAnswerBytes());
    }

    @Override
    public SendResult sendEmail(
            UUID templateId, String emailAddress, Map<String, String> personalisation, UUID reference, Span span) {
        ObjectNode body = mapper.createObjectNode()
                .put("email_address", emailAddress)
                .put("template_id", templateId.toString())
                .put("reference", reference.toString());
        body.set("personalisation", mapper.valueToTree(personalisation));
        HttpRequest request = request("/v2/notifications/email", span)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                .build();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            int status = response.statusCode();
            SendResult result = NotifyNlAnswers.send(status, response.body());
            switch (result) {
                case SendResult.Accepted accepted -> {}
                case SendResult.Rejected rejected ->
                    FailedCalls.warn(
                            LOG,
                            SEND,
                            "HTTP 400 (NotifyNL refuses the address)",
                            span,
                            "the notification ends niet-bezorgbaar (onbereikbaar)");
                // Not the call's failure but the setup's: the send pipeline logs it once, with the berichttype.
                case SendResult.SetupFailure setup ->
                    LOG.fine(() -> SEND + " refused: " + setup.error().errorClass());
                case SendResult.DailyLimit limit -> LOG.fine(() -> SEND + " refused: the daily limit");
                case SendResult.Unavailable unavailable ->
                    FailedCalls.warn(
                            LOG,
                            SEND,
                            unavailable.reason().equals("contract")
                                    ? "a 201 without a notification id"
                                    : FailedCalls.status(status, credential),
                            span,
                            unavailable.reason().equals("contract")
                                    ? "the attempt is looked up by reference later"
                                    : "the send is postponed");
            }
            return result;
        } catch (ConnectException | HttpConnectTimeoutException notConnected) {
            FailedCalls.warn(LOG, SEND, FailedCalls.exception(notConnected), span, "the send is postponed");
            return new SendResult.Unavailable("connection", false);
        } catch (IOException e) {
            FailedCalls.warn(
                    LOG,
                    SEND,
                    FailedCalls.exception(e),
                    span,
                    "the send is postponed and first looked up by reference");
            return new SendResult.Unavailable("connection", true);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new SendResult.Unavailable("interrupted", true);
        }
    }

    /** NotifyNL's page size of {@code GET /v2/notifications} ({@code API_PAGE_SIZE}): a full page may have a next. */
    static final int PAGE_SIZE = 250;
    /** At most this many pages are read by reference (an attempt is POSTed a few times at most). */
    static final int MAX_REFERENCE_PAGES = 4;

    @Override
    public ReferenceLookup findAllByReference(UUID reference, Span span) {
        String query =
                "?template_type=email&reference=" + URLEncoder.encode(reference.toString(), StandardCharsets.UTF_8);
        List<Lookup.Found> all = new ArrayList<>();
        String olderThan = null;
        for (int page = 0; page < MAX_REFERENCE_PAGES; page++) {
            int[] entries = {0};
            String[] last = {null};
            String pageQuery = olderThan == null ? query : query + "&older_than=" + olderThan;
            Lookup answer = lookUp("/v2/notifications" + pageQuery, span, list -> {
                if (!list.path("notifications").isArray()) {
                    // NotifyNL always lists them; without the array the answer says nothing, and "none" would
                    // POST the e-mail again
                    return new Lookup.Unavailable("contract");
                }
                for (JsonNode notificatie : list.path("notifications")) {
                    entries[0]++;
                    last[0] = id(notificatie.path("id")).map(UUID::toString).orElse(null);
                    if (reference
                            .toString()
                            .equals(notificatie.path("reference").asText())) {
                        all.add(found(notificatie));
                    }
                }
                return new Lookup.NotFound();
            });
            if (answer instanceof Lookup.Unavailable down) {
                return new ReferenceLookup.Unavailable(down.reason());
            }
            if (entries[0] < PAGE_SIZE || last[0] == null) {
                break;
            }
            olderThan = last[0];
        }
        return new ReferenceLookup.Found(List.copyOf(all));
    }

    @Override
    public Lookup findById(UUID notifyId, Span span) {
        return lookUp("/v2/notifications/" + notifyId, span, this::found);
    }

    private Lookup lookUp(String pathAndQuery, Span span, java.util.function.Function<JsonNode, Lookup> read) {
        try {
            HttpResponse<String> response =
                    http.send(request(pathAndQuery, span).GET().build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() == 200) {
                return read.apply(mapper.readTree(response.body()));
            }
            Lookup failed = NotifyNlAnswers.lookupFailure(response.statusCode(), response.body());
            if (failed instanceof Lookup.Unavailable) {
                FailedCalls.warn(
                        LOG,
                        LOOKUP,
                        FailedCalls.status(response.statusCode(), credential),
                        span,
                        "the status query is retried later");
            }
            return failed;
        } catch (IOException | RuntimeException e) {
            FailedCalls.warn(
                    LOG,
                    LOOKUP,
                    e instanceof IOException ? FailedCalls.exception(e) : "an answer outside the contract",
                    span,
                    "the status query is retried later");
            return new Lookup.Unavailable(e instanceof IOException ? "connection" : "contract");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Lookup.Unavailable("interrupted");
        }
    }

    @Override
    public TemplateLookup template(UUID templateId) {
        Span span = Span.root();
        try {
            HttpResponse<String> response = http.send(
                    request("/v2/template/" + templateId, span).GET().build(), HttpResponse.BodyHandlers.ofString());
            TemplateLookup lookup = response.statusCode() == 200
                    ? NotifyNlAnswers.template(response.body())
                    : NotifyNlAnswers.templateFailure(response.statusCode(), response.body());
            if (lookup instanceof TemplateLookup.Unavailable unavailable) {
                FailedCalls.warn(
                        LOG,
                        TEMPLATE,
                        response.statusCode() == 200
                                ? "an answer outside the contract"
                                : FailedCalls.status(response.statusCode(), credential),
                        span,
                        "the template's placeholders are asked again later (" + unavailable.reason() + ")");
            }
            return lookup;
        } catch (IOException e) {
            FailedCalls.warn(
                    LOG, TEMPLATE, FailedCalls.exception(e), span, "the template's placeholders are asked again later");
            return new TemplateLookup.Unavailable("connection");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new TemplateLookup.Unavailable("interrupted");
        }
    }

    private Lookup.Found found(JsonNode notificatie) {
        UUID id = id(notificatie.path("id")).orElseThrow(() -> new IllegalArgumentException("no id"));
        String status = notificatie.path("status").asText("");
        if (status.isEmpty()) {
            throw new IllegalArgumentException("no status");
        }
        Optional<Instant> completedAt = notificatie.path("completed_at").isTextual()
                ? Optional.of(
                        OffsetDateTime.parse(notificatie.path("completed_at").asText())
                                .toInstant())
                : Optional.empty();
        return new Lookup.Found(id, status, completedAt);
    }

    private HttpRequest.Builder request(String pathAndQuery, Span span) {
        return HttpRequest.newBuilder(URI.create(base + pathAndQuery))
                .header("Authorization", "Bearer " + token())
                .header("User-Agent", "nmc")
                .header("traceparent", span.traceparent());
    }

    /**
     * A JWT at most {@link #TOKEN_REUSE} old: NotifyNL accepts an {@code iat} within 30 seconds of its clock, and
     * signing one per call cost about 2 % of the NMC's CPU under load; the reuse leaves 25 of those 30 seconds for
     * the clocks' difference.
     */
    private String token() {
        Instant now = wallClock.instant();
        Token current = token.get();
        if (current != null
                && !now.isBefore(current.issued())
                && now.isBefore(current.issued().plus(TOKEN_REUSE))) {
            return current.content();
        }
        Instant issued = now.truncatedTo(ChronoUnit.SECONDS);
        Jwt jwt = Jwt.builder()
                .type("JWT")
                .algorithm(JwkOctet.ALG_HS256)
                .issuer(service.serviceId())
                .issueTime(issued)
                .build();
        Token fresh = new Token(issued, SignedJwt.sign(jwt, key).tokenContent());
        token.set(fresh);
        return fresh.content();
    }

    /** How long one signed token serves the calls of this service. */
    static final Duration TOKEN_REUSE = Duration.ofSeconds(5);

    private record Token(Instant issued, String content) {}

    private static Optional<UUID> id(JsonNode node) {
        return NotifyNlAnswers.id(node);
    }
}
