package nl.overheid.moz.nmc.simulator;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.core.WireMockConfiguration;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;

/**
 * A stand-in for the MOZa Profielservice as the NMC calls it ({@code api-spec/profielservice.yaml}, base path
 * {@value #BASE_PATH}), on WireMock, for tests and the local run.
 *
 * <h2>What it serves</h2>
 * <ul>
 *   <li>{@code POST /contactgegevens/opvragingen} ({@code Opvraging} → {@code Contactgegevens}): 200
 *       {@code {"emailadres": …}} for a registered number with an address, 404 problem of type
 *       {@value #PROBLEM_GEEN_EMAILVOORKEUR} for a party without an e-mail preference, 404 problem of type
 *       {@value #PROBLEM_ONBEKENDE_PARTIJ} for any other number.</li>
 *   <li>{@code POST /contactgegevens/ongeldig-meldingen} ({@code OngeldigMelding}): idempotent on
 *       {@code meldingId}: 201 {@code {meldingId}} the first time, 200 {@code {meldingId}} again with no new
 *       effect. Every first report is kept as a {@link Report} ({@link #reports()}); {@link #reportCalls()}
 *       counts every accepted call, repeats included. <b>A report does not change lookups</b>: the real
 *       service may stop answering an address it was told is invalid, but the simulator keeps every number's
 *       answer stable so a test's later sends are predictable ({@link #registerWithoutPreference} simulates
 *       that on purpose).</li>
 *   <li>On every request, in this order: {@code Authorization: Bearer <token>} with the
 *       {@linkplain Config#bearerToken() configured token}, else 401 ({@value #PROBLEM_TYPE_BASE}{@code
 *       niet-geauthenticeerd}, {@code WWW-Authenticate: Bearer}); then the optional {@code traceparent} header
 *       against the contract's pattern, the {@code Content-Type} ({@code application/json} when present) and
 *       the body against the request schema (required fields, patterns, enums, format uuid,
 *       {@code additionalProperties: false}): every violation in one 400 ({@code ongeldige-invoer}) whose
 *       {@code errors[]} hold {@code {name (JSON pointer or header), code (schema keyword), reason}}, never a
 *       value from the request.</li>
 *   <li>Every response carries {@code API-Version: }{@value #API_VERSION}; bodies are {@code application/json},
 *       problems RFC 9457 {@code application/problem+json}. Another method on a known path gets 405, any other
 *       path 404 (both problems, below every other stub).</li>
 * </ul>
 *
 * <h2>Dev data</h2>
 * <table>
 *   <caption>Lookup answer by KVK number</caption>
 *   <tr><th>identificerendNummer</th><th>answer</th><th>what the NotifyNL simulator then does</th></tr>
 *   <tr><td>{@value #KVK_DELIVERED}</td><td>200 {@value #DEV_EMAILADRES}</td><td>delivered</td></tr>
 *   <tr><td>{@value #KVK_PERM_FAIL}</td><td>200 {@code perm-fail@simulator.notify}</td><td>permanent-failure</td></tr>
 *   <tr><td>{@value #KVK_TEMP_FAIL}</td><td>200 {@code temp-fail@simulator.notify}</td><td>temporary-failure</td></tr>
 *   <tr><td>{@value #KVK_NO_PREFERENCE}</td><td>404 {@code geen-emailvoorkeur}</td><td>—</td></tr>
 *   <tr><td>{@value #KVK_UNKNOWN} and every unregistered number</td><td>404 {@code onbekende-partij}</td><td>—</td></tr>
 * </table>
 * Tests add or override numbers with {@link #register} (e.g. to {@link NotifyNlSimulator#NO_CALLBACK_ADDRESS}
 * or {@link NotifyNlSimulator#SLOW_CALLBACK_ADDRESS}) and {@link #registerWithoutPreference}; {@link #reset()}
 * restores exactly this table.
 *
 * <h2>Trace propagation</h2>
 * {@link #calls()} lists every request that reached the simulator's endpoints (operation, {@code traceparent}
 * as received or null, status, arrival time); {@link #traceparents()} the traceparents alone. Requests a
 * test's own stub answered without the simulator's transformer are only in WireMock's journal
 * ({@code wireMock().getAllServeEvents()}, header {@code traceparent}).
 *
 * <h2>Faults on top: stub priorities</h2>
 * The simulator's stubs are registered at priority {@value #STUB_PRIORITY} (lower wins; stubs without a
 * priority get 5). A test adds outages through {@link #wireMock()} and removes them with
 * {@code wireMock().removeStub(…)} or {@link #reset()}:
 * <pre>{@code
 * sim.wireMock().stubFor(post(urlPathEqualTo(ProfielserviceSimulator.LOOKUP_PATH)).atPriority(1)
 *         .willReturn(ProfielserviceSimulator.unavailable()));
 * sim.wireMock().stubFor(post(urlPathEqualTo(ProfielserviceSimulator.LOOKUP_PATH)).atPriority(1)
 *         .willReturn(ProfielserviceSimulator.tooManyRequests(30)));
 * // recorded by the simulator, but the caller never sees the 201:
 * sim.wireMock().stubFor(post(urlPathEqualTo(ProfielserviceSimulator.REPORT_PATH)).atPriority(1)
 *         .willReturn(aResponse().withTransformers(ProfielserviceSimulator.REPORT_TRANSFORMER)
 *                 .withFault(Fault.CONNECTION_RESET_BY_PEER)));
 * }</pre>
 *
 * <p>Thread-safe. Logs (through {@link Config#log()}) carry outcomes, melding ids and error codes only, never a
 * KVK number or an e-mail address. {@link Report#toString()} leaves the number out.
 */
public final class ProfielserviceSimulator implements AutoCloseable {

    /** Priority of the simulator's own stubs; test stubs at a lower number (e.g. 1) take precedence. */
    public static final int STUB_PRIORITY = 10;
    /** Priority of the 405 and 404 fallbacks, below every other stub. */
    public static final int FALLBACK_PRIORITY = 100;
    /** Requests kept in WireMock's journal and in {@link #calls()}. */
    public static final int REQUEST_JOURNAL_LIMIT = ContractService.CALL_JOURNAL_LIMIT;

    /** The contract's {@code info.version}, sent as {@code API-Version} on every response. */
    public static final String API_VERSION = "1.0.0";
    public static final String BASE_PATH = "/api/profielservice/v1";
    public static final String LOOKUP_PATH = BASE_PATH + "/contactgegevens/opvragingen";
    public static final String REPORT_PATH = BASE_PATH + "/contactgegevens/ongeldig-meldingen";

    /** The transformer behind {@code POST …/contactgegevens/opvragingen}. */
    public static final String LOOKUP_TRANSFORMER = "profielservice-contactgegevens-opvragen";
    /** The transformer behind {@code POST …/contactgegevens/ongeldig-meldingen}. */
    public static final String REPORT_TRANSFORMER = "profielservice-emailadres-ongeldig-melden";

    public static final String PROBLEM_TYPE_BASE = "https://profielservice.example.nl/problemen/";
    /** 404: the number belongs to no known party. */
    public static final String PROBLEM_ONBEKENDE_PARTIJ = "https://profielservice.example.nl/problemen/onbekende-partij";
    /** 404: the party has no e-mail preference. */
    public static final String PROBLEM_GEEN_EMAILVOORKEUR = "https://profielservice.example.nl/problemen/geen-emailvoorkeur";
    /** 400: the request does not match the contract; {@code errors} lists why. */
    public static final String PROBLEM_ONGELDIGE_INVOER = "https://profielservice.example.nl/problemen/ongeldige-invoer";
    /** 401: no, or not the configured, bearer token. */
    public static final String PROBLEM_NIET_GEAUTHENTICEERD = "https://profielservice.example.nl/problemen/niet-geauthenticeerd";

    /** Dev data: answers {@value #DEV_EMAILADRES}, which the NotifyNL simulator delivers. */
    public static final String KVK_DELIVERED = "12345670";
    /** Dev data: answers {@code perm-fail@simulator.notify} ({@link NotifyNlSimulator#PERM_FAIL_ADDRESS}). */
    public static final String KVK_PERM_FAIL = "12345671";
    /** Dev data: answers {@code temp-fail@simulator.notify} ({@link NotifyNlSimulator#TEMP_FAIL_ADDRESS}). */
    public static final String KVK_TEMP_FAIL = "12345672";
    /** Dev data: a known party without an e-mail preference (404 {@code geen-emailvoorkeur}). */
    public static final String KVK_NO_PREFERENCE = "12345673";
    /** Dev data: an unknown party (404 {@code onbekende-partij}), like every number not registered. */
    public static final String KVK_UNKNOWN = "99999999";
    /** The address of {@link #KVK_DELIVERED}. */
    public static final String DEV_EMAILADRES = "info@voorbeeldbedrijf.nl";

    /** The development bearer token. Not a secret: local runs and tests only. */
    public static final String DEFAULT_BEARER_TOKEN = "dev-profielservice-token";
    public static final String DEFAULT_BIND_ADDRESS = "127.0.0.1";
    /** The port of {@link #main} when {@code PROFIELSERVICE_SIM_PORT} is not set. */
    public static final int DEFAULT_STANDALONE_PORT = 8082;

    private final Config config;
    private final ContractService service;
    private final ContactRegistry registry = new ContactRegistry();
    private final InvalidReportEndpoint reportEndpoint;
    private final WireMockServer server;

    private ProfielserviceSimulator(Config config) {
        this.config = config;
        this.service = new ContractService(API_VERSION, PROBLEM_TYPE_BASE, config.bearerToken(),
                config.log(), Clock.systemUTC(), new ContractService.CallJournal());
        this.reportEndpoint = new InvalidReportEndpoint(service);
        this.server = new WireMockServer(WireMockConfiguration.options()
                .port(config.port())
                .bindAddress(config.bindAddress())
                .httpServerFactory(new CaseExactJetty())
                .mappingSource(new NoMappingsSource())
                .notifier(new QuietNotifier(config.log()))
                .maxRequestJournalEntries(REQUEST_JOURNAL_LIMIT)
                .extensions(new LookupEndpoint(service, registry), reportEndpoint));
    }

    /**
     * Starts a simulator with the dev data.
     *
     * @throws RuntimeException when the port cannot be bound
     */
    public static ProfielserviceSimulator start(Config config) {
        ProfielserviceSimulator simulator = new ProfielserviceSimulator(Objects.requireNonNull(config, "config"));
        simulator.server.start();
        simulator.registerStubs();
        return simulator;
    }

    /** Starts a simulator with {@link Config#defaults()}: a random port, the dev token and no log. */
    public static ProfielserviceSimulator start() {
        return start(Config.defaults());
    }

    /** The port it listens on (the chosen one when configured as 0). */
    public int port() {
        return server.port();
    }

    /**
     * {@code http://127.0.0.1:<port>/api/profielservice/v1}: the base URL for the NMC's Profielservice client
     * (the server URL of the contract, the paths follow it).
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

    /**
     * Registers (or re-registers) a party with an e-mail address: lookups of {@code kvk} answer it until
     * {@link #reset()}.
     *
     * @param kvk        8 digits (the contract's pattern)
     * @param emailadres an e-mail address of at most 254 characters (the contract's {@code Contactgegevens})
     * @throws IllegalArgumentException when either does not fit the contract (the message names neither value)
     */
    public void register(String kvk, String emailadres) {
        registry.register(kvk, emailadres);
    }

    /** Registers (or re-registers) a party that has no e-mail preference: lookups answer 404 {@code geen-emailvoorkeur}. */
    public void registerWithoutPreference(String kvk) {
        registry.registerWithoutPreference(kvk);
    }

    /** The effective invalid-address reports, one per {@code meldingId}, in the order they first arrived. */
    public List<Report> reports() {
        return reportEndpoint.reports();
    }

    /** Report calls answered 201 or 200 (valid and authorised), repeats of a {@code meldingId} included. */
    public int reportCalls() {
        return reportEndpoint.accepted();
    }

    /** Every request that reached the simulator's endpoints, whatever its answer, in the order answered. */
    public List<ReceivedCall> calls() {
        return service.calls().all();
    }

    /** The {@code traceparent} headers of {@link #calls()} that carried one, in the same order. */
    public List<String> traceparents() {
        return calls().stream().map(ReceivedCall::traceparent).filter(Objects::nonNull).toList();
    }

    /**
     * Back to a fresh simulator on the same port: the dev data again (runtime registrations gone), no reports,
     * calls or counts, every test stub removed and the request journal emptied.
     */
    public void reset() {
        registry.reset();
        reportEndpoint.reset();
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

    /** 503 as the contract declares it ({@code Unavailable}). */
    public static ResponseDefinitionBuilder unavailable() {
        return problemResponse(503, "Niet beschikbaar.", "De Profielservice is tijdelijk niet beschikbaar.");
    }

    /** 429 as the contract declares it ({@code TooManyRequests}), with {@code Retry-After}. */
    public static ResponseDefinitionBuilder tooManyRequests(int retryAfterSeconds) {
        return problemResponse(429, "Te veel verzoeken.", "Probeer het na Retry-After seconden opnieuw.")
                .withHeader("Retry-After", Integer.toString(retryAfterSeconds));
    }

    private void registerStubs() {
        server.stubFor(post(urlPathEqualTo(LOOKUP_PATH))
                .atPriority(STUB_PRIORITY)
                .willReturn(aResponse().withTransformers(LOOKUP_TRANSFORMER)));
        server.stubFor(post(urlPathEqualTo(REPORT_PATH))
                .atPriority(STUB_PRIORITY)
                .willReturn(aResponse().withTransformers(REPORT_TRANSFORMER)));
        for (String path : List.of(LOOKUP_PATH, REPORT_PATH)) {
            server.stubFor(any(urlPathEqualTo(path))
                    .atPriority(FALLBACK_PRIORITY - 1)
                    .willReturn(Problems.response(API_VERSION, 405, PROBLEM_TYPE_BASE + "methode-niet-toegestaan",
                            "Methode niet toegestaan.", "Dit pad kent alleen POST.").withHeader("Allow", "POST")));
        }
        server.stubFor(any(anyUrl())
                .atPriority(FALLBACK_PRIORITY)
                .willReturn(Problems.response(API_VERSION, 404, PROBLEM_TYPE_BASE + "niet-gevonden",
                        "Niet gevonden.", "Dit pad bestaat niet in de Profielservice-API.")));
    }

    /**
     * Runs the simulator until the process is killed, for the local run script. Configured by environment:
     * {@code PROFIELSERVICE_SIM_PORT} (default 8082), {@code PROFIELSERVICE_SIM_TOKEN} (default
     * {@value #DEFAULT_BEARER_TOKEN}) and optionally {@code PROFIELSERVICE_SIM_BIND_ADDRESS} (127.0.0.1). Logs one
     * line per request to stdout: outcomes, melding ids and error codes only.
     */
    public static void main(String[] args) throws InterruptedException {
        Config config;
        try {
            config = Config.builder()
                    .port(SimulatorEnv.intFromEnv("PROFIELSERVICE_SIM_PORT", DEFAULT_STANDALONE_PORT))
                    .bindAddress(SimulatorEnv.fromEnv("PROFIELSERVICE_SIM_BIND_ADDRESS", DEFAULT_BIND_ADDRESS))
                    .bearerToken(SimulatorEnv.fromEnv("PROFIELSERVICE_SIM_TOKEN", DEFAULT_BEARER_TOKEN))
                    .log(SimulatorEnv.stdout("profielservice-sim"))
                    .build();
        } catch (IllegalArgumentException invalid) {
            System.err.println("profielservice-sim: " + invalid.getMessage());
            System.exit(2);
            return;
        }
        ProfielserviceSimulator simulator = start(config);
        Runtime.getRuntime().addShutdownHook(new Thread(simulator::close, "profielservice-sim-shutdown"));
        config.log().accept("listening on " + simulator.baseUrl() + " (bind " + config.bindAddress() + "), "
                + (config.bearerToken().equals(DEFAULT_BEARER_TOKEN) ? "default dev token" : "token from PROFIELSERVICE_SIM_TOKEN")
                + ", dev data: 4 registered KVK numbers (see the README)");
        new CountDownLatch(1).await();
    }

    /**
     * One effective invalid-address report. {@link #toString()} leaves the identifying number out.
     *
     * @param meldingId            the report's id (the idempotency key)
     * @param identificerendNummer the KVK number reported, as sent the first time
     * @param receivedAt           the simulator's wall clock ({@code Clock.systemUTC()}) when it was first recorded
     */
    public record Report(UUID meldingId, String identificerendNummer, Instant receivedAt) {

        @Override
        public String toString() {
            return "Report[meldingId=" + meldingId + ", receivedAt=" + receivedAt + "]";
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
            return new Builder().port(port).bindAddress(bindAddress).bearerToken(bearerToken).log(log);
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
            private Consumer<String> log = line -> { };

            private Builder() {
            }

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
