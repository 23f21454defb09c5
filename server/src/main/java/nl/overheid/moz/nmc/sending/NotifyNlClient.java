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
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.trace.FailedCalls;
import nl.overheid.moz.nmc.trace.Span;

/**
 * {@link NotifyNl} of one NotifyNL service on {@code java.net.http}: NotifyNL's v2 API with its JWT scheme
 * (HS256, {@code iss} = the service's id, {@code iat} = now, signed with its key's secret; helidon-security-jwt). Hand-written because
 * GOV.UK Notify's official Java client cannot carry the {@code traceparent} header (its connection factory
 * is package-private) and sets its time-outs JVM-wide; this one bounds every call itself, follows no
 * redirects, never repeats a POST, and keeps only status codes of failures (Notify's error text may quote
 * the address). Every failed call is logged at WARNING with its status or reason and its trace
 * ({@link FailedCalls}).
 */
public final class NotifyNlClient implements NotifyNl {

    private static final Logger LOG = Logger.getLogger(NotifyNlClient.class.getName());
    private static final String SEND = "NotifyNL POST /v2/notifications/email";
    private static final String LOOKUP = "NotifyNL GET /v2/notifications";
    private final NotifyNlSettings settings;
    private final NotifyNlSettings.Service service;
    /** The credential a 401 or 403 points at: this service's key. */
    private final String credential;
    /** Protocol time, not the NMC's business clock: NotifyNL checks {@code iat} against its own clock. */
    private final Clock wallClock = Clock.systemUTC();

    private final URI base;
    private final JwkOctet key;
    private final HttpClient http;
    private final ObjectMapper mapper = new ObjectMapper();

    public NotifyNlClient(NotifyNlSettings settings, NotifyNlSettings.Service service) {
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
        this.http = HttpClient.newBuilder()
                .connectTimeout(settings.connectTimeout())
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
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
            if (status == 201) {
                Optional<UUID> id = id(mapper.readTree(response.body()).path("id"));
                if (id.isEmpty()) {
                    // A 201 we cannot read still means NotifyNL has it: look it up by reference later.
                    FailedCalls.warn(
                            LOG,
                            SEND,
                            "a 201 without a notification id",
                            span,
                            "the attempt is looked up by reference later");
                    return new SendResult.Unavailable("contract", true);
                }
                return new SendResult.Accepted(id.get());
            }
            if (status == 400) {
                FailedCalls.warn(
                        LOG,
                        SEND,
                        "HTTP 400 (NotifyNL refuses this e-mail)",
                        span,
                        "the notification ends niet-bezorgbaar; if it recurs, check that the berichttype's template "
                                + "belongs to NotifyNL service " + service.name() + " and its personalisation");
                return new SendResult.Rejected("http-400");
            }
            FailedCalls.warn(LOG, SEND, FailedCalls.status(status, credential), span, "the send is postponed");
            return new SendResult.Unavailable("http-" + status, status >= 500);
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
            return switch (response.statusCode()) {
                case 200 -> read.apply(mapper.readTree(response.body()));
                case 404 -> new Lookup.NotFound();
                default -> {
                    FailedCalls.warn(
                            LOG,
                            LOOKUP,
                            FailedCalls.status(response.statusCode(), credential),
                            span,
                            "the status query is retried later");
                    yield new Lookup.Unavailable("http-" + response.statusCode());
                }
            };
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
                .timeout(settings.readTimeout())
                .header("Authorization", "Bearer " + token())
                .header("User-Agent", "nmc")
                .header("traceparent", span.traceparent());
    }

    /** A fresh JWT per call: NotifyNL accepts an {@code iat} within 30 seconds of its clock. */
    private String token() {
        Jwt jwt = Jwt.builder()
                .type("JWT")
                .algorithm(JwkOctet.ALG_HS256)
                .issuer(service.serviceId())
                .issueTime(wallClock.instant())
                .build();
        return SignedJwt.sign(jwt, key).tokenContent();
    }

    private static Optional<UUID> id(JsonNode node) {
        try {
            return node.isTextual() ? Optional.of(UUID.fromString(node.asText())) : Optional.empty();
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
