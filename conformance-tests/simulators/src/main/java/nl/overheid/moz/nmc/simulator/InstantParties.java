package nl.overheid.moz.nmc.simulator;

import com.github.tomakehurst.wiremock.http.HttpHeader;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * NotifyNL answering at once, for the benchmark harness ({@code GET /v2/template/{id}}: a template without
 * placeholders; {@code POST /v2/notifications/email}: the JWT checked, the simulator's 201 body, every address
 * {@code delivered} with its receipt POSTed to the callback URL after a fixed delay). One JDK {@code HttpServer} on
 * virtual threads, no WireMock and no contract validation, so the party costs the shared CPU as little as possible;
 * the behaviour beyond the happy path lives in {@link NotifyNlSimulator}. (The processing log is no party: the NMC
 * writes it into its LDV store, a database beside its own.)
 *
 * <p>It records the moment every send arrived ({@link #sendArrivals()}), which the budget benchmark counts
 * per window. Thread-safe. Logs nothing: the addresses it sees are made up by the benchmark.
 */
public final class InstantParties implements AutoCloseable {

    private final HttpServer server;
    private final NotifyJwtVerifier jwt;
    private final String serviceId;
    private final URI callbackUrl;
    private final String callbackToken;
    private final Duration callbackDelay;
    private final Clock clock = Clock.systemUTC();
    private final HttpClient callbacks = HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5))
            .executor(Executors.newVirtualThreadPerTaskExecutor())
            .build();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "instant-parties-callbacks");
        thread.setDaemon(true);
        return thread;
    });
    private final ConcurrentLinkedQueue<Instant> sendArrivals = new ConcurrentLinkedQueue<>();
    private final AtomicLong sequence = new AtomicLong();
    private final AtomicInteger callbacksDelivered = new AtomicInteger();
    private final AtomicInteger callbacksFailed = new AtomicInteger();

    private InstantParties(String apiKey, URI callbackUrl, String callbackToken, Duration callbackDelay)
            throws IOException {
        this.serviceId = apiKey.substring(apiKey.length() - 73, apiKey.length() - 37);
        // One service; its templates are not checked here (the benchmark sends one berichttype).
        this.jwt = new NotifyJwtVerifier(List.of(new NotifyNlSimulator.Service(apiKey, callbackToken, Set.of())));
        this.callbackUrl = callbackUrl;
        this.callbackToken = callbackToken;
        this.callbackDelay = callbackDelay;
        this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 512);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/v2/notifications/email", this::sendEmail);
        server.createContext("/v2/template/", this::template);
        server.start();
    }

    /**
     * Starts the parties on a free port of 127.0.0.1.
     *
     * @param apiKey        the NotifyNL API key the NMC uses ({@code {keyname}-{serviceId}-{secret}})
     * @param callbackUrl   the NMC's receipt endpoint
     * @param callbackToken the bearer token of the receipts
     * @param callbackDelay from the 201 to the receipt (throughput does not depend on it, only latency)
     */
    public static InstantParties start(String apiKey, URI callbackUrl, String callbackToken, Duration callbackDelay) {
        try {
            return new InstantParties(apiKey, callbackUrl, callbackToken, callbackDelay);
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the instant parties", e);
        }
    }

    /** {@code http://127.0.0.1:<port>}: NotifyNL's base URL. */
    public String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** When each accepted send arrived, in arrival order (by this JVM's clock). */
    public List<Instant> sendArrivals() {
        return new ArrayList<>(sendArrivals);
    }

    public int sends() {
        return sendArrivals.size();
    }

    /** Receipts the NMC answered with a 2xx. */
    public int callbacksDelivered() {
        return callbacksDelivered.get();
    }

    /** Receipts that failed (no 2xx or no connection); not retried. */
    public int callbacksFailed() {
        return callbacksFailed.get();
    }

    /** {@code GET /v2/template/{id}}: any template, without placeholders (the benchmark sends none). */
    private void template(HttpExchange exchange) throws IOException {
        try (exchange) {
            String id = exchange.getRequestURI().getPath().substring("/v2/template/".length());
            java.util.Optional<UUID> templateId = NotifyFormats.parseUuid(id);
            if (templateId.isEmpty()) {
                answer(
                        exchange,
                        400,
                        NotifyError.of(400, "ValidationError", "id is not a valid UUID")
                                .toJson());
                return;
            }
            answer(
                    exchange,
                    200,
                    NotifyJson.template(NotifyNlSimulator.Template.email(templateId.get()), clock.instant()));
        }
    }

    private void sendEmail(HttpExchange exchange) throws IOException {
        try (exchange) {
            Instant now = clock.instant();
            if (!exchange.getRequestMethod().equals("POST")) {
                answer(
                        exchange,
                        405,
                        NotifyError.of(405, "BadRequestError", "Method not allowed")
                                .toJson());
                return;
            }
            String authorization = exchange.getRequestHeaders().getFirst("Authorization");
            NotifyJwtVerifier.Checked checked = jwt.check(
                    authorization == null
                            ? HttpHeader.absent("Authorization")
                            : new HttpHeader("Authorization", authorization),
                    now);
            if (checked.error() != null) {
                answer(exchange, checked.error().statusCode(), checked.error().toJson());
                return;
            }
            Optional<Map<String, Object>> body = JsonText.parseObject(read(exchange.getRequestBody()));
            if (body.isEmpty()
                    || !(body.get().get("email_address") instanceof String address)
                    || !(body.get().get("template_id") instanceof String template)
                    || NotifyFormats.parseUuid(template).isEmpty()) {
                answer(
                        exchange,
                        400,
                        NotifyError.of(400, "ValidationError", "email_address and template_id are required")
                                .toJson());
                return;
            }
            StoredNotification notification = new StoredNotification(
                    sequence.incrementAndGet(),
                    UUID.randomUUID(),
                    UUID.fromString(serviceId),
                    (String) body.get().get("reference"),
                    address,
                    NotifyFormats.parseUuid(template).orElseThrow(),
                    personalisation(body.get().get("personalisation")),
                    null,
                    SendEmailEndpoint.SUBJECT,
                    "Benchmark",
                    now,
                    now,
                    now,
                    SimulatedRecipient.DELIVERED,
                    "delivered");
            sendArrivals.add(now);
            answer(exchange, 201, NotifyJson.sendEmailResponse(notification, baseUrl(), serviceId));
            scheduler.schedule(() -> deliverReceipt(notification), callbackDelay.toNanos(), TimeUnit.NANOSECONDS);
        }
    }

    private void deliverReceipt(StoredNotification notification) {
        HttpRequest request = HttpRequest.newBuilder(callbackUrl)
                .timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + callbackToken)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(NotifyJson.deliveryReceipt(notification)))
                .build();
        callbacks.sendAsync(request, HttpResponse.BodyHandlers.discarding()).whenComplete((response, failure) -> {
            if (failure == null && response.statusCode() / 100 == 2) {
                callbacksDelivered.incrementAndGet();
            } else {
                callbacksFailed.incrementAndGet();
            }
        });
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> personalisation(Object value) {
        return value instanceof Map<?, ?> map
                ? Collections.unmodifiableMap(new LinkedHashMap<>((Map<String, Object>) map))
                : Map.of();
    }

    private static String read(InputStream body) throws IOException {
        return new String(body.readAllBytes(), StandardCharsets.UTF_8);
    }

    private static void answer(HttpExchange exchange, int status, String json) throws IOException {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        scheduler.shutdownNow();
        callbacks.close();
    }
}
