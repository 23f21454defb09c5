package nl.overheid.moz.nmc.simulator;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.core.WireMockConfiguration;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

/**
 * A stand-in for the platform's LDV service (Logboek Dataverwerkingen) as the NMC writes to it
 * ({@code api-spec/ldv.yaml}, base path {@value #BASE_PATH}), on WireMock, for tests and the local run.
 *
 * <h2>What it serves</h2>
 * <ul>
 *   <li>{@code POST /dataverwerkingen} ({@code Dataverwerking} → {@code Bevestiging}): a valid record is
 *       stored and acknowledged with 201 {@code {"id": "<trace_id>-<span_id>"}}. Idempotent on
 *       ({@code trace_id}, {@code span_id}): a record sent again is acknowledged again with 201 and stored once
 *       (the first one stays). {@link #records()} lists the stored records in acknowledgement order;
 *       {@link #acknowledgements()} counts every 201, repeats included.</li>
 *   <li>On every request, in this order: {@code Authorization: Bearer <token>} with the
 *       {@linkplain Config#bearerToken() configured token}, else 401 ({@value #PROBLEM_TYPE_BASE}{@code
 *       niet-geauthenticeerd}, {@code WWW-Authenticate: Bearer}); then the optional {@code traceparent} header
 *       against the contract's pattern, the {@code Content-Type} ({@code application/json} when present) and
 *       the body against {@code Dataverwerking}: {@code trace_id} 32 and {@code span_id}/{@code parent_span_id}
 *       16 lowercase hex digits, {@code name} 1–200 characters, {@code start_time}/{@code end_time} RFC 3339
 *       date-times, {@code status_code} one of {@code STATUS_CODE_UNSET|OK|ERROR}, {@code attributes} 1–50
 *       {@code {key, value}} pairs (nothing else in a pair), an optional {@code resource} with up to 20
 *       attributes, nothing else at the top level. Every violation in one 400 ({@code ongeldige-invoer}) whose
 *       {@code errors[]} hold {@code {name (JSON pointer or header), code (schema keyword), reason}}, never a
 *       value from the request.</li>
 *   <li>Every response carries {@code API-Version: }{@value #API_VERSION}; bodies are {@code application/json},
 *       problems RFC 9457 {@code application/problem+json}. Another method on the path gets 405, any other
 *       path 404 (both problems, below every other stub).</li>
 * </ul>
 *
 * <h2>Acknowledgement time: which clock, how precise</h2>
 * {@link Record#acknowledgedAt()} is read from {@code Clock.systemUTC()} (the wall clock, microsecond
 * resolution on Linux) after the record is stored, right before the 201 is handed to Jetty: the caller
 * cannot have the acknowledgement earlier. WireMock stamps a request's {@code LoggedRequest.getLoggedDate()}
 * with {@code new java.util.Date()} when it arrives: the same wall clock, at millisecond resolution. So for a
 * caller that waits for the acknowledgement before its next call, {@code acknowledgedAt} truncated to
 * milliseconds is never after that call's logged date at another simulator in the same JVM or on the same
 * machine; {@link Record#acknowledgedNoLaterThan(Instant)} makes that comparison. A call made before the
 * acknowledgement shows up only when it precedes it by a millisecond or more.
 *
 * <h2>Trace propagation</h2>
 * Each {@link Record} keeps the {@code traceparent} header of the call that stored it; {@link #calls()} lists
 * every request that reached the endpoint (also refused ones), {@link #traceparents()} their traceparents.
 *
 * <h2>Faults on top: stub priorities</h2>
 * The simulator's stubs are registered at priority {@value #STUB_PRIORITY} (lower wins; stubs without a
 * priority get 5). A test adds outages through {@link #wireMock()} and removes them with
 * {@code wireMock().removeStub(…)} or {@link #reset()}:
 * <pre>{@code
 * sim.wireMock().stubFor(post(urlPathEqualTo(LdvSimulator.RECORD_PATH)).atPriority(1)
 *         .willReturn(LdvSimulator.unavailable()));
 * // a 201 that is no acknowledgement under the contract (no id):
 * sim.wireMock().stubFor(post(urlPathEqualTo(LdvSimulator.RECORD_PATH)).atPriority(1)
 *         .willReturn(aResponse().withStatus(201).withHeader("Content-Type", "application/json")
 *                 .withHeader("API-Version", LdvSimulator.API_VERSION).withBody("{\"ok\":true}")));
 * // stored by the simulator, but the caller never sees the 201:
 * sim.wireMock().stubFor(post(urlPathEqualTo(LdvSimulator.RECORD_PATH)).atPriority(1)
 *         .willReturn(aResponse().withTransformers(LdvSimulator.RECORD_TRANSFORMER)
 *                 .withFault(Fault.CONNECTION_RESET_BY_PEER)));
 * }</pre>
 *
 * <p>Records are kept in memory until {@link #reset()} or the end of the process. Thread-safe. Logs (through
 * {@link Config#log()}) carry record ids ({@code <trace_id>-<span_id>}) and error codes only, never a name or
 * an attribute.
 */
public final class LdvSimulator implements AutoCloseable {

    /** Priority of the simulator's own stubs; test stubs at a lower number (e.g. 1) take precedence. */
    public static final int STUB_PRIORITY = 10;
    /** Priority of the 405 and 404 fallbacks, below every other stub. */
    public static final int FALLBACK_PRIORITY = 100;
    /** Requests kept in WireMock's journal and in {@link #calls()}. */
    public static final int REQUEST_JOURNAL_LIMIT = ContractService.CALL_JOURNAL_LIMIT;

    /** The contract's {@code info.version}, sent as {@code API-Version} on every response. */
    public static final String API_VERSION = "1.0.0";

    public static final String BASE_PATH = "/api/ldv/v1";
    public static final String RECORD_PATH = BASE_PATH + "/dataverwerkingen";

    /** The transformer behind {@code POST …/dataverwerkingen}. */
    public static final String RECORD_TRANSFORMER = "ldv-dataverwerking-vastleggen";

    public static final String PROBLEM_TYPE_BASE = "https://ldv.example.nl/problemen/";
    /** 400: the record does not match the contract; {@code errors} lists why. */
    public static final String PROBLEM_ONGELDIGE_INVOER = "https://ldv.example.nl/problemen/ongeldige-invoer";
    /** 401: no, or not the configured, bearer token. */
    public static final String PROBLEM_NIET_GEAUTHENTICEERD = "https://ldv.example.nl/problemen/niet-geauthenticeerd";

    /** The development bearer token. Not a secret: local runs and tests only. */
    public static final String DEFAULT_BEARER_TOKEN = "dev-ldv-token";

    public static final String DEFAULT_BIND_ADDRESS = "127.0.0.1";
    /** The port of {@link #main} when {@code LDV_SIM_PORT} is not set. */
    public static final int DEFAULT_STANDALONE_PORT = 8083;

    private final Config config;
    private final ContractService service;
    private final DataverwerkingEndpoint endpoint;
    private final WireMockServer server;

    private LdvSimulator(Config config) {
        this.config = config;
        this.service = new ContractService(
                API_VERSION,
                PROBLEM_TYPE_BASE,
                config.bearerToken(),
                config.log(),
                Clock.systemUTC(),
                new ContractService.CallJournal());
        this.endpoint = new DataverwerkingEndpoint(service);
        this.server = new WireMockServer(WireMockConfiguration.options()
                .port(config.port())
                .bindAddress(config.bindAddress())
                .httpServerFactory(new CaseExactJetty())
                .mappingSource(new NoMappingsSource())
                .notifier(new QuietNotifier(config.log()))
                .maxRequestJournalEntries(REQUEST_JOURNAL_LIMIT)
                .extensions(endpoint));
    }

    /**
     * Starts a simulator.
     *
     * @throws RuntimeException when the port cannot be bound
     */
    public static LdvSimulator start(Config config) {
        LdvSimulator simulator = new LdvSimulator(Objects.requireNonNull(config, "config"));
        simulator.server.start();
        simulator.registerStubs();
        return simulator;
    }

    /** Starts a simulator with {@link Config#defaults()}: a random port, the dev token and no log. */
    public static LdvSimulator start() {
        return start(Config.defaults());
    }

    /** The port it listens on (the chosen one when configured as 0). */
    public int port() {
        return server.port();
    }

    /**
     * {@code http://127.0.0.1:<port>/api/ldv/v1}: the base URL for the NMC's LDV client (the server URL of the
     * contract, the paths follow it).
     */
    public String baseUrl() {
        return "http://127.0.0.1:" + port() + BASE_PATH;
    }

    /** The bearer token it accepts. */
    public String bearerToken() {
        return config.bearerToken();
    }

    public Config config() {
        return config;
    }

    /** The underlying server, for extra stubs ({@code stubFor}) and verification ({@code verify}). */
    public WireMockServer wireMock() {
        return server;
    }

    /** The stored records, one per ({@code trace_id}, {@code span_id}), in the order first acknowledged. */
    public List<Record> records() {
        return endpoint.records();
    }

    /** 201s answered, repeats of a record included. */
    public int acknowledgements() {
        return endpoint.acknowledgements();
    }

    /** Every request that reached the simulator's endpoint, whatever its answer, in the order answered. */
    public List<ReceivedCall> calls() {
        return service.calls().all();
    }

    /** The {@code traceparent} headers of {@link #calls()} that carried one, in the same order. */
    public List<String> traceparents() {
        return calls().stream()
                .map(ReceivedCall::traceparent)
                .filter(Objects::nonNull)
                .toList();
    }

    /**
     * Back to a fresh simulator on the same port: no records, calls or counts, every test stub removed and the
     * request journal emptied.
     */
    public void reset() {
        endpoint.reset();
        service.calls().clear();
        server.resetAll();
        registerStubs();
    }

    @Override
    public void close() {
        server.stop();
    }

    /**
     * A contract-conforming problem response for a test's fault stub: the status, {@code API-Version},
     * {@code application/problem+json} and {@code {type: about:blank, title, status, detail}}.
     */
    public static ResponseDefinitionBuilder problemResponse(int status, String title, String detail) {
        return Problems.response(API_VERSION, status, Problems.ABOUT_BLANK, title, detail);
    }

    /** 503 as the contract declares it. */
    public static ResponseDefinitionBuilder unavailable() {
        return problemResponse(503, "Niet beschikbaar.", "Het logboek is tijdelijk niet beschikbaar.");
    }

    private void registerStubs() {
        server.stubFor(post(urlPathEqualTo(RECORD_PATH))
                .atPriority(STUB_PRIORITY)
                .willReturn(aResponse().withTransformers(RECORD_TRANSFORMER)));
        server.stubFor(any(urlPathEqualTo(RECORD_PATH))
                .atPriority(FALLBACK_PRIORITY - 1)
                .willReturn(Problems.response(
                                API_VERSION,
                                405,
                                PROBLEM_TYPE_BASE + "methode-niet-toegestaan",
                                "Methode niet toegestaan.",
                                "Dit pad kent alleen POST.")
                        .withHeader("Allow", "POST")));
        server.stubFor(any(anyUrl())
                .atPriority(FALLBACK_PRIORITY)
                .willReturn(Problems.response(
                        API_VERSION,
                        404,
                        PROBLEM_TYPE_BASE + "niet-gevonden",
                        "Niet gevonden.",
                        "Dit pad bestaat niet in de LDV-API.")));
    }

    /**
     * Runs the simulator until the process is killed, for the local run script. Configured by environment:
     * {@code LDV_SIM_PORT} (default 8083), {@code LDV_SIM_TOKEN} (default {@value #DEFAULT_BEARER_TOKEN}) and
     * optionally {@code LDV_SIM_BIND_ADDRESS} (127.0.0.1). Logs one line per request to stdout: record ids and
     * error codes only.
     */
    public static void main(String[] args) throws InterruptedException {
        Config config;
        try {
            config = Config.builder()
                    .port(SimulatorEnv.intFromEnv("LDV_SIM_PORT", DEFAULT_STANDALONE_PORT))
                    .bindAddress(SimulatorEnv.fromEnv("LDV_SIM_BIND_ADDRESS", DEFAULT_BIND_ADDRESS))
                    .bearerToken(SimulatorEnv.fromEnv("LDV_SIM_TOKEN", DEFAULT_BEARER_TOKEN))
                    .log(SimulatorEnv.stdout("ldv-sim"))
                    .build();
        } catch (IllegalArgumentException invalid) {
            System.err.println("ldv-sim: " + invalid.getMessage());
            System.exit(2);
            return;
        }
        LdvSimulator simulator = start(config);
        Runtime.getRuntime().addShutdownHook(new Thread(simulator::close, "ldv-sim-shutdown"));
        config.log()
                .accept("listening on " + simulator.baseUrl() + " (bind " + config.bindAddress() + "), "
                        + (config.bearerToken().equals(DEFAULT_BEARER_TOKEN)
                                ? "default dev token"
                                : "token from LDV_SIM_TOKEN"));
        new CountDownLatch(1).await();
    }

    /**
     * One stored record.
     *
     * @param traceId        {@code trace_id}
     * @param spanId         {@code span_id}
     * @param parentSpanId   {@code parent_span_id}, or null when absent
     * @param name           {@code name}
     * @param startTime      {@code start_time} (more than nine fraction digits cut to nanoseconds)
     * @param endTime        {@code end_time}
     * @param statusCode     {@code status_code}
     * @param attributes     {@code attributes} as key → value in the order sent (a key sent twice keeps its
     *                       last value); unmodifiable
     * @param acknowledgedAt the simulator's wall clock ({@code Clock.systemUTC()}, microseconds) when it
     *                       stored the record, right before answering the first 201; see the class Javadoc
     * @param traceparent    the {@code traceparent} header of the call that stored it, or null when absent
     */
    public record Record(
            String traceId,
            String spanId,
            String parentSpanId,
            String name,
            Instant startTime,
            Instant endTime,
            String statusCode,
            Map<String, String> attributes,
            Instant acknowledgedAt,
            String traceparent) {

        /** {@code <trace_id>-<span_id>}: the id in the acknowledgement. */
        public String id() {
            return traceId + "-" + spanId;
        }

        /**
         * Whether the record was acknowledged no later than {@code receivedElsewhere}, at the millisecond
         * resolution of WireMock's {@code LoggedRequest.getLoggedDate()} (pass {@code getLoggedDate().toInstant()}).
         */
        public boolean acknowledgedNoLaterThan(Instant receivedElsewhere) {
            return !acknowledgedAt.truncatedTo(ChronoUnit.MILLIS).isAfter(receivedElsewhere);
        }
    }

    /**
     * The simulator's settings; build with {@link #builder()} or take {@link #defaults()}.
     *
     * @param port        TCP port; 0 picks a free one
     * @param bindAddress the address to listen on
     * @param bearerToken the only accepted {@code Authorization: Bearer} token
     * @param log         receives one line per request; never personal data
     */
    public record Config(int port, String bindAddress, String bearerToken, Consumer<String> log) {

        public Config {
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("port must be 0..65535, got " + port);
            }
            Objects.requireNonNull(bindAddress, "bindAddress");
            Objects.requireNonNull(bearerToken, "bearerToken");
            if (bearerToken.isBlank() || bearerToken.chars().anyMatch(Character::isWhitespace)) {
                throw new IllegalArgumentException("bearerToken must be non-blank without whitespace");
            }
            Objects.requireNonNull(log, "log");
        }

        /** A random port on 127.0.0.1, the dev token, no log. */
        public static Config defaults() {
            return builder().build();
        }

        public static Builder builder() {
            return new Builder();
        }

        public Builder toBuilder() {
            return new Builder()
                    .port(port)
                    .bindAddress(bindAddress)
                    .bearerToken(bearerToken)
                    .log(log);
        }

        /** Leaves the token out. */
        @Override
        public String toString() {
            return "Config[port=" + port + ", bindAddress=" + bindAddress + "]";
        }

        /** Starts from the defaults; every setter replaces one field. */
        public static final class Builder {
            private int port = 0;
            private String bindAddress = DEFAULT_BIND_ADDRESS;
            private String bearerToken = DEFAULT_BEARER_TOKEN;
            private Consumer<String> log = line -> {};

            private Builder() {}

            public Builder port(int port) {
                this.port = port;
                return this;
            }

            public Builder bindAddress(String bindAddress) {
                this.bindAddress = bindAddress;
                return this;
            }

            public Builder bearerToken(String bearerToken) {
                this.bearerToken = bearerToken;
                return this;
            }

            /** For example {@code System.out::println}; lines carry no personal data. */
            public Builder log(Consumer<String> log) {
                this.log = log;
                return this;
            }

            public Config build() {
                return new Config(port, bindAddress, bearerToken, log);
            }
        }
    }
}
