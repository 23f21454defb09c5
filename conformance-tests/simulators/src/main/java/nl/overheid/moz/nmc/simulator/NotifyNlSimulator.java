package nl.overheid.moz.nmc.simulator;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.core.WireMockConfiguration;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

/**
 * A stand-in for NotifyNL (the Dutch fork of GOV.UK Notify) that speaks Notify's real v2 REST protocol and
 * behaves like a NotifyNL <em>test</em> API key, on WireMock.
 *
 * <h2>What it mimics</h2>
 * <ul>
 *   <li><b>Several services</b>, each with its own API key, callback token and (optionally) templates
 *       ({@link Config#services()}). As in Notify, every request acts for the service whose key signed it: a
 *       send with a template of another service is a 400 {@code BadRequestError} {@value #TEMPLATE_NOT_FOUND}
 *       ({@code validate_template}), and a notification of another service does not exist for it (404, not
 *       listed). A service that lists no templates takes any template no other service lists.</li>
 *   <li><b>Authentication</b> on every request: {@code Authorization: Bearer <JWT>}, HS256, claims {@code iss}
 *       (the service id) and {@code iat} (within 30 s), signed with the secret of that service's API key. An
 *       API key has the form {@code {keyname}-{serviceId}-{secret}}; like the official client, the service id
 *       is the 36 characters before the last 37 and the secret the last 36. Failures answer Notify's
 *       {@code AuthError} (401 without or with a non-Bearer header, else 403 {@code Invalid token: …} or
 *       {@code Error: Your system clock must be accurate to within 30 seconds}).</li>
 *   <li>{@code POST /v2/notifications/email}: NotifyNL's checks in its order, with its exact answers, and its 201
 *       body; see {@link SendEmailEndpoint}: the request schema with no other properties allowed ({@code reference}
 *       at most 1,000 characters, an {@code https} {@code one_click_unsubscribe_url}), the per-minute rate limit and
 *       the daily limit (per UTC day; not for test keys), the e-mail permission, the template (not found, another
 *       type, deleted, missing personalisation), trial mode and team keys with the service's team, and the
 *       smoke-test addresses. What a service is can change while it runs ({@link #service}: {@link ServiceSetup}):
 *       its key's type, trial mode, the limits, a revoked key, an archived service (403 on every call), its
 *       templates.</li>
 *   <li>{@code GET /v2/template/{id}}: the template with its placeholders ({@code personalisation}); see
 *       {@link GetTemplateEndpoint}.</li>
 *   <li>{@code GET /v2/notifications/{id}}: see {@link GetNotificationEndpoint}.</li>
 *   <li>{@code GET /v2/notifications?reference=…&status=…&template_type=…&older_than=…}: see
 *       {@link ListNotificationsEndpoint}.</li>
 *   <li><b>Delivery receipts</b>: after the {@linkplain Config#callbackDelay() callback delay} the simulator POSTs
 *       {@code {id, reference, to, status, created_at, completed_at, sent_at, notification_type, template_id,
 *       template_version}} to the {@linkplain Config#callbackUrl() callback URL} with
 *       {@code Authorization: Bearer <the sending service's callback token>}, and retries a connection error, 5xx or 429 five times
 *       (Notify: 5 minutes apart; here {@linkplain Config#callbackRetryInterval() configurable}, default 1 s).
 *       Other answers are not retried, as in Notify.</li>
 *   <li>Timestamps everywhere in Notify's format: UTC with microseconds, e.g. {@code 2026-11-30T10:15:30.123456Z};
 *       answers as Flask writes them (keys sorted, non-ASCII escaped), callbacks as {@code json.dumps} does.</li>
 *   <li>The nightly {@linkplain #runNightlyTimeout timeout}: an e-mail still {@code sending} 72 hours after it was
 *       created becomes {@code temporary-failure}, with its receipt (the standalone simulator runs it at 00:05 UTC;
 *       tests call it). A final status never changes by itself and gets no second receipt.</li>
 *   <li>Complaint callbacks ({@link #complaint}, and for {@value #COMPLAINT_ADDRESS}): {@code notification_id,
 *       complaint_id, reference, to, complaint_date} to the callback URL, the status unchanged.</li>
 * </ul>
 *
 * <h2>Simulated recipients</h2>
 * <table>
 *   <caption>Outcome by recipient address</caption>
 *   <tr><th>address</th><th>status (after the callback delay)</th><th>callback</th><th>origin</th></tr>
 *   <tr><td>{@value #TEMP_FAIL_ADDRESS}</td><td>{@code temporary-failure}</td><td>yes</td><td>Notify's test key</td></tr>
 *   <tr><td>{@value #PERM_FAIL_ADDRESS}</td><td>{@code permanent-failure}</td><td>yes</td><td>Notify's test key</td></tr>
 *   <tr><td>any other valid address</td><td>{@code delivered}</td><td>yes</td><td>Notify's test key</td></tr>
 *   <tr><td>{@value #NO_CALLBACK_ADDRESS}</td><td>{@code technical-failure} ({@code created} before)</td>
 *       <td><b>none</b>: only a status query finds it</td><td>simulator only</td></tr>
 *   <tr><td>{@value #SLOW_CALLBACK_ADDRESS}</td><td>{@code delivered}</td><td>after 10 × the delay</td><td>simulator only</td></tr>
 *   <tr><td>{@value #PENDING_ADDRESS}</td><td>{@code sending}, until a test decides (or 72 hours pass)</td><td>no</td>
 *       <td>simulator only</td></tr>
 *   <tr><td>{@value #COMPLAINT_ADDRESS}</td><td>{@code delivered}, then a complaint</td><td>yes, and a complaint
 *       callback</td><td>simulator only</td></tr>
 * </table>
 * These outcomes hold for every key type (NotifyNL's test key fakes the first three; with a live key the simulator
 * still plays the provider).
 * Until its outcome a notification reads {@code sending} (with {@code sent_at}) and {@code completed_at} null.
 *
 * <p>Beyond Notify: tests can give an e-mail a {@linkplain #laterOutcome later outcome} (a bounce after a
 * delivery report; NotifyNL itself ignores a provider's result after a final status), create a
 * {@linkplain #duplicate duplicate} (the same e-mail accepted twice),
 * {@linkplain #forget forget} one (retention ended) and {@linkplain #awaitCallbacks wait} for the receipts.
 *
 * <h2>Faults on top: stub priorities</h2>
 * The simulator's stubs are registered at priority {@value #STUB_PRIORITY} (in WireMock a lower number wins;
 * stubs without a priority get 5). A test adds outages on top through {@link #wireMock()} and removes them
 * again with {@code wireMock().removeStub(…)} or {@link #reset()}:
 * <pre>{@code
 * sim.wireMock().stubFor(post(urlPathEqualTo("/v2/notifications/email")).atPriority(1)
 *         .willReturn(aResponse().withStatus(500)
 *                 .withBody(NotifyNlSimulator.errorBody(500, "Exception", "Internal server error"))));
 * sim.wireMock().stubFor(post(urlPathEqualTo("/v2/notifications/email")).atPriority(1)
 *         .willReturn(aResponse().withStatus(429).withBody(NotifyNlSimulator.errorBody(429, "RateLimitError",
 *                 "Exceeded rate limit for key type TEST of 3000 requests per 60 seconds"))));
 * // accepted and delivered by the simulator, but the caller never sees the 201:
 * sim.wireMock().stubFor(post(urlPathEqualTo("/v2/notifications/email")).atPriority(1)
 *         .willReturn(aResponse().withTransformers(NotifyNlSimulator.SEND_EMAIL_TRANSFORMER)
 *                 .withFault(Fault.CONNECTION_RESET_BY_PEER)));
 * }</pre>
 * A stub that names one of the simulator's transformers ({@link #SEND_EMAIL_TRANSFORMER},
 * {@link #GET_NOTIFICATION_TRANSFORMER}, {@link #LIST_NOTIFICATIONS_TRANSFORMER}) gets the simulator's answer
 * but keeps its own delay and fault. The request journal ({@code wireMock().verify(…)}) keeps the last
 * {@value #REQUEST_JOURNAL_LIMIT} requests.
 *
 * <h2>Not simulated</h2>
 * Template versions (every template is at version 1), data retention, SMS and letters, send-a-file, reply-to
 * addresses, and the SES provider itself (the recipient address chooses the outcome).
 *
 * <p>Thread-safe. Logs (through {@link Config#log()}) carry ids, references and statuses only, never e-mail
 * addresses or personalisation.
 */
public final class NotifyNlSimulator implements AutoCloseable {

    /** Priority of the simulator's own stubs; test stubs at a lower number (e.g. 1) take precedence. */
    public static final int STUB_PRIORITY = 10;

    /** Requests kept in WireMock's journal for verification. */
    public static final int REQUEST_JOURNAL_LIMIT = 20_000;

    /** The transformer behind {@code POST /v2/notifications/email}. */
    public static final String SEND_EMAIL_TRANSFORMER = "notifynl-send-email";
    /** The transformer behind {@code GET /v2/notifications/{id}}. */
    public static final String GET_NOTIFICATION_TRANSFORMER = "notifynl-get-notification";
    /** The transformer behind {@code GET /v2/notifications}. */
    public static final String LIST_NOTIFICATIONS_TRANSFORMER = "notifynl-list-notifications";
    /** The transformer behind {@code GET /v2/template/{id}}. */
    public static final String GET_TEMPLATE_TRANSFORMER = "notifynl-get-template";

    /** Notify's test key answers {@code temporary-failure} for this address. */
    public static final String TEMP_FAIL_ADDRESS = "temp-fail@simulator.notify";
    /** Notify's test key answers {@code permanent-failure} for this address. */
    public static final String PERM_FAIL_ADDRESS = "perm-fail@simulator.notify";
    /** Simulator only: {@code technical-failure} on Notify's own send path, and no callback. */
    public static final String NO_CALLBACK_ADDRESS = "no-callback@simulator.notify";
    /** Simulator only: {@code delivered}, with the callback after ten times the callback delay. */
    public static final String SLOW_CALLBACK_ADDRESS = "slow-callback@simulator.notify";
    /** Simulator only: stays {@code sending} without a callback until {@link #laterOutcome} or {@link #forget}. */
    public static final String PENDING_ADDRESS = "pending@simulator.notify";

    /** Simulator only: {@code delivered}, and then a complaint callback (the recipient marked it as spam). */
    public static final String COMPLAINT_ADDRESS = "complaint@simulator.notify";

    /** Notify's answer to a send with a template its service does not have ({@code validate_template}). */
    public static final String TEMPLATE_NOT_FOUND = "Template not found";
    /** Notify's answer to a send with an archived template. */
    public static final String TEMPLATE_DELETED = "Template has been deleted";
    /** Notify's answer to a send in trial mode to someone outside the team (U+2019 and U+2013 as Notify writes them). */
    public static final String TRIAL_MODE =
            "Can\u2019t send to this recipient when service is in trial mode \u2013 see "
                    + "https://www.notifications.service.gov.uk/trial-mode";
    /** Notify's answer to a send with a team key to someone outside the team. */
    public static final String TEAM_KEY = "Can\u2019t send to this recipient using a team-only API key";
    /** Notify's answer to a send of a service without the e-mail permission. */
    public static final String NO_EMAIL_PERMISSION = "Service is not allowed to send emails";
    /** Notify's answer to a request with a revoked key (for seven days after the revocation). */
    public static final String KEY_REVOKED = "Invalid token: API key revoked";
    /** Notify's answer to any request of an archived service. */
    public static final String SERVICE_ARCHIVED = "Invalid token: service is archived";
    /** The addresses Notify answers 201 for without storing or sending anything ({@code SIMULATED_EMAIL_ADDRESSES}). */
    public static final List<String> SMOKE_TEST_ADDRESSES = List.of(
            "simulate-delivered@notifications.service.gov.uk",
            "simulate-delivered-2@notifications.service.gov.uk",
            "simulate-delivered-3@notifications.service.gov.uk");
    /** {@code SENDING_NOTIFICATIONS_TIMEOUT_PERIOD}: a notification still sending after it is temporary-failure. */
    public static final Duration SENDING_TIMEOUT = Duration.ofHours(72);

    /** The fixed development service id inside {@link #DEFAULT_API_KEY}. */
    public static final String DEFAULT_SERVICE_ID = "7a4e1f0c-5b3d-4c2a-9e8f-1d2c3b4a5f60";
    /** The fixed development key: {@code nmc_dev-<service id>-<secret>}. Not a secret: local runs and tests only. */
    public static final String DEFAULT_API_KEY =
            "nmc_dev-" + DEFAULT_SERVICE_ID + "-2f9c8b7a-6e5d-4c3b-a2f1-0e9d8c7b6a50";

    public static final String DEFAULT_CALLBACK_URL = "http://localhost:8080/api/nmc/v1/notifynl-callback";
    public static final String DEFAULT_CALLBACK_TOKEN = "1NhJd9mbOU6uAQjw-ZqZata29KgOQtu-IasihqBotkM";
    public static final Duration DEFAULT_CALLBACK_DELAY = Duration.ofMillis(300);
    public static final Duration DEFAULT_CALLBACK_RETRY_INTERVAL = Duration.ofSeconds(1);
    /** Notify's {@code API_PAGE_SIZE}. */
    public static final int DEFAULT_PAGE_SIZE = 250;

    public static final String DEFAULT_BIND_ADDRESS = "127.0.0.1";
    /** The port of {@link #main} when {@code NOTIFYNL_SIM_PORT} is not set. */
    public static final int DEFAULT_STANDALONE_PORT = 8081;
    /** Notify retries a failed callback this many times. */
    public static final int CALLBACK_MAX_RETRIES = CallbackSender.MAX_RETRIES;

    private final Config config;
    private final Simulation simulation;
    private final WireMockServer server;

    private NotifyNlSimulator(Config config) {
        this.config = config;
        Clock clock = config.clock();
        this.simulation = new Simulation(
                config,
                states(config),
                new NotificationStore(),
                new CallbackSender(
                        config.callbackUrl(),
                        serviceId -> config.service(serviceId).callbackBearerToken(),
                        config.callbackRetryInterval(),
                        clock,
                        config.log()),
                new NotifyJwtVerifier(config.services()),
                clock,
                clock.instant());
        this.server = new WireMockServer(WireMockConfiguration.options()
                .port(config.port())
                .bindAddress(config.bindAddress())
                .mappingSource(new NoMappingsSource())
                .notifier(new QuietNotifier(config.log()))
                .maxRequestJournalEntries(REQUEST_JOURNAL_LIMIT)
                .extensions(
                        new SendEmailEndpoint(simulation),
                        new GetNotificationEndpoint(simulation),
                        new ListNotificationsEndpoint(simulation),
                        new GetTemplateEndpoint(simulation)));
    }

    private static java.util.Map<UUID, ServiceState> states(Config config) {
        java.util.Map<UUID, ServiceState> states = new java.util.LinkedHashMap<>();
        config.services()
                .forEach(service -> states.put(UUID.fromString(service.serviceId()), new ServiceState(service)));
        return java.util.Map.copyOf(states);
    }

    /**
     * Starts a simulator.
     *
     * @throws RuntimeException when the port cannot be bound
     */
    public static NotifyNlSimulator start(Config config) {
        NotifyNlSimulator simulator = new NotifyNlSimulator(Objects.requireNonNull(config, "config"));
        simulator.server.start();
        simulator.registerStubs();
        return simulator;
    }

    /** Starts a simulator with {@link Config#defaults()}: a random port and no log. */
    public static NotifyNlSimulator start() {
        return start(Config.defaults());
    }

    /** The port it listens on (the chosen one when configured as 0). */
    public int port() {
        return server.port();
    }

    /** {@code http://localhost:<port>}: the base URL for the NotifyNL client (without {@code /v2}). */
    public String baseUrl() {
        return "http://localhost:" + port();
    }

    /** The API key of its first service. */
    public String apiKey() {
        return config.apiKey();
    }

    /** The service id inside the first service's API key. */
    public String serviceId() {
        return config.serviceId();
    }

    /** Every service it knows, the first one first. */
    public List<Service> services() {
        return config.services();
    }

    public Config config() {
        return config;
    }

    /** The underlying server, for extra stubs ({@code stubFor}) and verification ({@code verify}). */
    public WireMockServer wireMock() {
        return server;
    }

    /** Every accepted notification, oldest first, with the status it has now. */
    public List<SentNotification> sentNotifications() {
        Instant now = simulation.clock().instant();
        return simulation.store().all().stream()
                .map(notification -> SentNotification.of(notification, now))
                .toList();
    }

    /** One accepted notification by its NotifyNL id. */
    public Optional<SentNotification> sentNotification(UUID id) {
        Instant now = simulation.clock().instant();
        return simulation.store().find(id).map(notification -> SentNotification.of(notification, now));
    }

    /** Delivery receipts the callback URL answered with a 2xx. */
    public int callbacksDelivered() {
        return simulation.callbacks().delivered();
    }

    /** Delivery-receipt POSTs made, retries included, whatever their answer. */
    public int callbackAttempts() {
        return simulation.callbacks().attempts();
    }

    /** Delivery receipts scheduled or being retried: not yet answered with a 2xx, dropped or given up. */
    public int callbacksPending() {
        return simulation.callbacks().pending();
    }

    /** Waits until no delivery receipt is pending (see {@link #callbacksPending()}); false on time-out. */
    public boolean awaitCallbacks(Duration timeout) throws InterruptedException {
        Instant deadline = Instant.now().plus(timeout);
        while (callbacksPending() > 0) {
            if (Instant.now().isAfter(deadline)) {
                return false;
            }
            Thread.sleep(5);
        }
        return true;
    }

    /**
     * NotifyNL learns a later outcome of an e-mail it already completed or still sends (a bounce after a
     * delivery report, a late delivery report): from now on it is in {@code status}, and a delivery receipt
     * goes out. Notify's statuses: {@code delivered}, {@code permanent-failure}, {@code temporary-failure},
     * {@code technical-failure}.
     */
    public void laterOutcome(UUID notifyId, String status) {
        requireOutcome(status);
        StoredNotification notification = simulation
                .store()
                .find(notifyId)
                .orElseThrow(() -> new IllegalArgumentException("no notification " + notifyId));
        StoredNotification later =
                notification.withOutcome(status, simulation.clock().instant());
        simulation.store().replace(later);
        simulation.log("later outcome id=" + notifyId + " status=" + status);
        simulation.callbacks().schedule(later, Duration.ZERO);
    }

    /**
     * The same e-mail accepted a second time under a new NotifyNL id (a client's retry that Notify did not
     * deduplicate): same reference, recipient and content, completed in {@code status} now, with its receipt.
     */
    public UUID duplicate(UUID notifyId, String status) {
        return duplicate(notifyId, status, true);
    }

    /** {@link #duplicate(UUID, String)}; {@code sendCallback} false: its receipt was lost (all tries failed). */
    public UUID duplicate(UUID notifyId, String status, boolean sendCallback) {
        requireOutcome(status);
        StoredNotification original = simulation
                .store()
                .find(notifyId)
                .orElseThrow(() -> new IllegalArgumentException("no notification " + notifyId));
        StoredNotification copy = original.duplicate(
                simulation.store().nextSequence(),
                UUID.randomUUID(),
                status,
                simulation.clock().instant());
        simulation.store().add(copy);
        simulation.log("duplicate id=" + copy.id() + " of id=" + notifyId + " status=" + status);
        if (sendCallback) {
            simulation.callbacks().schedule(copy, Duration.ZERO);
        }
        return copy.id();
    }

    /**
     * What NotifyNL keeps about a service, to change while it runs: the key's type, trial mode and the team, the
     * daily and the rate limit, the e-mail permission, a revoked key, an archived service, the templates.
     */
    public ServiceSetup service(String serviceId) {
        ServiceState state = simulation.states().get(UUID.fromString(serviceId));
        if (state == null) {
            throw new IllegalArgumentException("no service " + serviceId);
        }
        return new ServiceSetup(state);
    }

    /** {@link #service(String)} of the first service. */
    public ServiceSetup service() {
        return service(serviceId());
    }

    /**
     * NotifyNL's nightly {@code timeout-sending-notifications} (00:05 UTC): every e-mail still {@code sending} that
     * was created more than {@link #SENDING_TIMEOUT} ago becomes {@code temporary-failure} now, with its delivery
     * receipt. Finished ones are left alone (a final status never changes, and gets no further receipt). Returns how
     * many timed out.
     */
    public int runNightlyTimeout() {
        Instant now = simulation.clock().instant();
        int timedOut = 0;
        for (StoredNotification notification : simulation.store().all()) {
            if ("sending".equals(notification.statusAt(now))
                    && notification.createdAt().isBefore(now.minus(SENDING_TIMEOUT))) {
                StoredNotification later = notification.withOutcome("temporary-failure", now);
                simulation.store().replace(later);
                simulation.callbacks().schedule(later, Duration.ZERO);
                simulation.log("timed out id=" + notification.id() + " status=temporary-failure");
                timedOut++;
            }
        }
        return timedOut;
    }

    /**
     * A recipient marked the e-mail as spam: NotifyNL sends a complaint callback ({@code send_complaint_to_service}:
     * {@code notification_id, complaint_id, reference, to, complaint_date}) with the service's callback token, and
     * the notification's status stays as it is. Returns the complaint's id.
     */
    public UUID complaint(UUID notifyId) {
        StoredNotification notification = simulation
                .store()
                .find(notifyId)
                .orElseThrow(() -> new IllegalArgumentException("no notification " + notifyId));
        UUID complaintId = UUID.randomUUID();
        simulation
                .callbacks()
                .scheduleComplaint(notification, complaintId, simulation.clock().instant(), Duration.ZERO);
        simulation.log("complaint id=" + notifyId + " complaint_id=" + complaintId);
        return complaintId;
    }

    /** NotifyNL forgets an e-mail, as at the end of its retention period: status queries answer 404. */
    public void forget(UUID notifyId) {
        simulation.store().remove(notifyId);
        simulation.log("forgotten id=" + notifyId);
    }

    private static void requireOutcome(String status) {
        if (!List.of("delivered", "permanent-failure", "temporary-failure", "technical-failure")
                .contains(status)) {
            throw new IllegalArgumentException("not a final Notify status: " + status);
        }
    }

    /**
     * Back to a fresh simulator on the same port: forgets all notifications, drops pending callbacks, zeroes
     * the counters, puts every service back as configured, removes every test stub and empties the request journal.
     */
    public void reset() {
        simulation.callbacks().reset();
        simulation.store().clear();
        simulation.states().values().forEach(ServiceState::reset);
        server.resetAll();
        registerStubs();
    }

    /** Stops the server and drops pending callbacks. */
    @Override
    public void close() {
        server.stop();
        simulation.callbacks().close();
    }

    /**
     * A Notify error body, for test stubs:
     * {@code {"errors":[{"error":"<error>","message":"<message>"}],"status_code":<statusCode>}}.
     */
    public static String errorBody(int statusCode, String error, String message) {
        return NotifyError.of(statusCode, error, message).toJson();
    }

    private void registerStubs() {
        server.stubFor(post(urlPathEqualTo("/v2/notifications/email"))
                .atPriority(STUB_PRIORITY)
                .willReturn(aResponse().withTransformers(SEND_EMAIL_TRANSFORMER)));
        server.stubFor(get(urlPathEqualTo("/v2/notifications"))
                .atPriority(STUB_PRIORITY)
                .willReturn(aResponse().withTransformers(LIST_NOTIFICATIONS_TRANSFORMER)));
        server.stubFor(get(urlPathMatching("/v2/notifications/[^/]+"))
                .atPriority(STUB_PRIORITY)
                .willReturn(aResponse().withTransformers(GET_NOTIFICATION_TRANSFORMER)));
        server.stubFor(get(urlPathMatching("/v2/template/[^/]+"))
                .atPriority(STUB_PRIORITY)
                .willReturn(aResponse().withTransformers(GET_TEMPLATE_TRANSFORMER)));
    }

    /**
     * One service's state at the simulated NotifyNL, changed while it runs; every setter returns this. {@link #reset()}
     * puts it back as configured (so does the simulator's {@link NotifyNlSimulator#reset()}).
     */
    public static final class ServiceSetup {
        private final ServiceState state;

        private ServiceSetup(ServiceState state) {
            this.state = state;
        }

        /** The type of the service's API key ({@code TEST} sends to anyone and has no daily limit). */
        public ServiceSetup keyType(KeyType type) {
            state.keyType(type);
            return this;
        }

        /**
         * Trial mode (a {@code restricted} service): with a live key it sends only to these team members' addresses
         * (compared without case); others get the 400 {@value #TRIAL_MODE}. A test key still sends to anyone.
         */
        public ServiceSetup trialMode(String... team) {
            state.trialMode(true, Set.of(team));
            return this;
        }

        /** Out of trial mode: a live key sends to anyone. */
        public ServiceSetup leaveTrialMode() {
            state.trialMode(false, Set.of());
            return this;
        }

        /** The daily limit for e-mail (per UTC day; not for test keys): the next send over it is a 429. */
        public ServiceSetup dailyLimit(int limit) {
            state.dailyLimit(limit);
            return this;
        }

        /** Requests per 60 seconds for the key's type (default 3,000); every request counts, refused ones too. */
        public ServiceSetup rateLimit(int limit) {
            state.rateLimit(limit);
            return this;
        }

        /** Whether the service may send e-mail (else the 400 {@value #NO_EMAIL_PERMISSION}). */
        public ServiceSetup emailPermission(boolean allowed) {
            state.emailAllowed(allowed);
            return this;
        }

        /** The key is revoked: every request is the 403 {@value #KEY_REVOKED}. */
        public ServiceSetup revokeKey() {
            state.keyRevoked(true);
            return this;
        }

        /** The service is archived: every request is the 403 {@value #SERVICE_ARCHIVED}. */
        public ServiceSetup archive() {
            state.archived(true);
            return this;
        }

        /** Adds or replaces a template (a changed template asks for other placeholders from now on). */
        public ServiceSetup template(Template template) {
            state.template(template);
            return this;
        }

        /** Archives a template: sends are the 400 {@value #TEMPLATE_DELETED}, {@code GET} still answers it. */
        public ServiceSetup deleteTemplate(UUID templateId) {
            state.archiveTemplate(templateId);
            return this;
        }

        /** E-mails counted towards today's (UTC) daily limit. */
        public int sentToday(Instant now) {
            return state.sentToday(now);
        }

        /** Back as configured. */
        public ServiceSetup reset() {
            state.reset();
            return this;
        }
    }

    /**
     * Runs the simulator until the process is killed, for the local run script. Configured by environment:
     * {@code NOTIFYNL_SIM_PORT} (default 8081), {@code NOTIFYNL_SIM_CALLBACK_URL} (default
     * {@value #DEFAULT_CALLBACK_URL}), {@code NOTIFYNL_SIM_CALLBACK_TOKEN} (default
     * {@value #DEFAULT_CALLBACK_TOKEN}), {@code NOTIFYNL_SIM_API_KEY} (default {@link #DEFAULT_API_KEY}),
     * {@code NOTIFYNL_SIM_TEMPLATES} (the first service's templates, comma-separated, each a template id optionally
     * followed by {@code :placeholder+placeholder}; default none: any template, without placeholders), further
     * services as {@code NOTIFYNL_SIM_API_KEY_2}, {@code NOTIFYNL_SIM_CALLBACK_TOKEN_2} (default the first's),
     * {@code NOTIFYNL_SIM_TEMPLATES_2}, then {@code _3}, … and
     * optionally {@code NOTIFYNL_SIM_CALLBACK_DELAY_MS} (300), {@code NOTIFYNL_SIM_CALLBACK_RETRY_INTERVAL_MS}
     * (1000), {@code NOTIFYNL_SIM_BIND_ADDRESS} (127.0.0.1). Logs one line per request and callback to stdout:
     * ids, references and statuses only.
     */
    public static void main(String[] args) throws InterruptedException {
        Config config;
        try {
            config = Config.builder()
                    .port(intFromEnv("NOTIFYNL_SIM_PORT", DEFAULT_STANDALONE_PORT))
                    .bindAddress(fromEnv("NOTIFYNL_SIM_BIND_ADDRESS", DEFAULT_BIND_ADDRESS))
                    .callbackUrl(URI.create(fromEnv("NOTIFYNL_SIM_CALLBACK_URL", DEFAULT_CALLBACK_URL)))
                    .callbackBearerToken(fromEnv("NOTIFYNL_SIM_CALLBACK_TOKEN", DEFAULT_CALLBACK_TOKEN))
                    .apiKey(fromEnv("NOTIFYNL_SIM_API_KEY", DEFAULT_API_KEY))
                    .templates(templatesFromEnv("NOTIFYNL_SIM_TEMPLATES"))
                    .callbackDelay(Duration.ofMillis(
                            intFromEnv("NOTIFYNL_SIM_CALLBACK_DELAY_MS", (int) DEFAULT_CALLBACK_DELAY.toMillis())))
                    .callbackRetryInterval(Duration.ofMillis(intFromEnv("NOTIFYNL_SIM_CALLBACK_RETRY_INTERVAL_MS", (int)
                            DEFAULT_CALLBACK_RETRY_INTERVAL.toMillis())))
                    .log(NotifyNlSimulator::printLine)
                    .build();
            Config.Builder more = config.toBuilder();
            for (int n = 2; fromEnv("NOTIFYNL_SIM_API_KEY_" + n, null) != null; n++) {
                more.addService(new Service(
                        fromEnv("NOTIFYNL_SIM_API_KEY_" + n, null),
                        fromEnv("NOTIFYNL_SIM_CALLBACK_TOKEN_" + n, config.callbackBearerToken()),
                        Set.of(),
                        templatesFromEnv("NOTIFYNL_SIM_TEMPLATES_" + n),
                        KeyType.TEST));
            }
            config = more.build();
        } catch (IllegalArgumentException invalid) {
            System.err.println("notifynl-sim: " + invalid.getMessage());
            System.exit(2);
            return;
        }
        NotifyNlSimulator simulator = start(config);
        Runtime.getRuntime().addShutdownHook(new Thread(simulator::close, "notifynl-sim-shutdown"));
        // NotifyNL's nightly timeout-sending-notifications, at 00:05 UTC
        java.util.concurrent.Executors.newSingleThreadScheduledExecutor(runnable -> {
                    Thread thread = new Thread(runnable, "notifynl-sim-nightly");
                    thread.setDaemon(true);
                    return thread;
                })
                .scheduleAtFixedRate(
                        simulator::runNightlyTimeout,
                        untilNextNightlyRun(Instant.now()).toSeconds(),
                        Duration.ofDays(1).toSeconds(),
                        java.util.concurrent.TimeUnit.SECONDS);
        printLine("NotifyNL simulator listening on " + simulator.baseUrl()
                + " (bind " + config.bindAddress() + "), services "
                + config.services().stream()
                        .map(service -> service.serviceId() + " ("
                                + service.templateIds().size() + " templates)")
                        .toList()
                + (config.apiKey().equals(DEFAULT_API_KEY)
                        ? ", default dev API key"
                        : ", API key from NOTIFYNL_SIM_API_KEY")
                + ", callbacks to " + config.callbackUrl() + " after "
                + config.callbackDelay().toMillis() + " ms");
        new CountDownLatch(1).await();
    }

    private static Duration untilNextNightlyRun(Instant now) {
        Instant today = now.truncatedTo(java.time.temporal.ChronoUnit.DAYS).plus(Duration.ofMinutes(5));
        return Duration.between(now, today.isAfter(now) ? today : today.plus(Duration.ofDays(1)));
    }

    private static void printLine(String line) {
        System.out.println(Instant.now() + " notifynl-sim " + line);
    }

    private static String fromEnv(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value.strip();
    }

    /**
     * Templates from the environment: {@code <uuid>[:<placeholder>[+<placeholder>…]]}, comma-separated; e.g.
     * {@code 0b2f…,7d1c…:naam} is a template without placeholders and one that asks for {@code naam}.
     */
    private static List<Template> templatesFromEnv(String name) {
        String value = fromEnv(name, null);
        if (value == null) {
            return List.of();
        }
        List<Template> templates = new java.util.ArrayList<>();
        for (String entry : value.split(",")) {
            String[] parts = entry.strip().split(":", 2);
            UUID id = NotifyFormats.parseUuid(parts[0].strip())
                    .orElseThrow(() -> new IllegalArgumentException(
                            name + " must list template ids (UUIDs), each optionally with :placeholder+placeholder"));
            String[] placeholders = parts.length < 2 || parts[1].isBlank()
                    ? new String[0]
                    : java.util.Arrays.stream(parts[1].split("\\+"))
                            .map(String::strip)
                            .toArray(String[]::new);
            templates.add(Template.email(id, placeholders));
        }
        return List.copyOf(templates);
    }

    private static int intFromEnv(String name, int fallback) {
        String value = fromEnv(name, null);
        if (value == null) {
            return fallback;
        }
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException notANumber) {
            throw new IllegalArgumentException(name + " must be a whole number, got '" + value + "'");
        }
    }

    /**
     * A snapshot of one accepted notification. {@link #toString()} leaves out the e-mail address and the
     * personalisation.
     *
     * @param id              the id NotifyNL answered in the 201
     * @param serviceId       the service whose key sent it (the JWT's {@code iss}, checked with its secret)
     * @param reference       the request's {@code reference}, or null
     * @param personalisation as sent, unmodifiable
     * @param status          Notify's status at the time of the snapshot
     * @param completedAt     when the final status was reached, or null before that
     */
    public record SentNotification(
            UUID id,
            UUID serviceId,
            String reference,
            String emailAddress,
            UUID templateId,
            Map<String, Object> personalisation,
            String status,
            Instant createdAt,
            Instant completedAt) {

        static SentNotification of(StoredNotification notification, Instant now) {
            return new SentNotification(
                    notification.id(),
                    notification.serviceId(),
                    notification.reference(),
                    notification.emailAddress(),
                    notification.templateId(),
                    notification.personalisation(),
                    notification.statusAt(now),
                    notification.createdAt(),
                    notification.completedAtOrNull(now));
        }

        @Override
        public String toString() {
            return "SentNotification[id=" + id + ", serviceId=" + serviceId + ", reference=" + reference
                    + ", templateId=" + templateId
                    + ", status=" + status + ", createdAt=" + createdAt + ", completedAt=" + completedAt + "]";
        }
    }

    /**
     * One NotifyNL service the simulator knows.
     *
     * @param apiKey              its API key: {@code {keyname}-{serviceId}-{secret}}
     * @param callbackBearerToken the bearer token of its delivery-receipt (and complaint) callbacks (configured per
     *                            service at Notify)
     * @param templateIds         its templates; a send with a template another service lists is refused (400
     *                            {@value #TEMPLATE_NOT_FOUND}); when empty, the service takes any template no other
     *                            service lists (the simulator's original leniency)
     * @param templates           its templates with content: the placeholders {@code GET /v2/template/{id}} lists
     *                            and a send must fill; an id of {@code templateIds} without one is a template without
     *                            placeholders
     * @param keyType             the type of its API key: {@code TEST} (the default: research mode, no trial mode, no
     *                            daily limit), {@code NORMAL} ("live") or {@code TEAM}
     */
    public record Service(
            String apiKey,
            String callbackBearerToken,
            Set<UUID> templateIds,
            List<Template> templates,
            KeyType keyType) {

        /** An API key is at least {@code x-} plus a 36-character service id, {@code -} and a 36-character secret. */
        private static final int MIN_API_KEY_LENGTH = 75;

        public Service {
            Objects.requireNonNull(apiKey, "apiKey");
            if (apiKey.length() < MIN_API_KEY_LENGTH
                    || apiKey.charAt(apiKey.length() - 37) != '-'
                    || apiKey.charAt(apiKey.length() - 74) != '-'
                    || NotifyFormats.parseUuid(apiKey.substring(apiKey.length() - 73, apiKey.length() - 37))
                            .isEmpty()) {
                throw new IllegalArgumentException(
                        "apiKey must look like {keyname}-{serviceId (uuid)}-{secret (36 characters)}");
            }
            java.util.Map<UUID, Template> all = new java.util.LinkedHashMap<>();
            templates.forEach(template -> all.put(template.id(), template));
            templateIds.forEach(id -> all.putIfAbsent(id, Template.email(id)));
            templates = List.copyOf(all.values());
            templateIds = java.util.Set.copyOf(all.keySet());
            Objects.requireNonNull(keyType, "keyType");
        }

        /** A service with a test key and templates without placeholders. */
        public Service(String apiKey, String callbackBearerToken, Set<UUID> templateIds) {
            this(apiKey, callbackBearerToken, templateIds, List.of(), KeyType.TEST);
        }

        /** The service id: the 36 characters before the last 37 of the API key (as the official client). */
        public String serviceId() {
            return apiKey.substring(apiKey.length() - 73, apiKey.length() - 37);
        }

        /** The signing secret: the last 36 characters of the API key (as the official client). */
        String secret() {
            return apiKey.substring(apiKey.length() - 36);
        }

        /** Leaves the API key's secret and the callback token out. */
        @Override
        public String toString() {
            return "Service[serviceId=" + serviceId() + ", templateIds=" + templateIds + ", keyType=" + keyType + "]";
        }
    }

    /** The type of an API key ({@code app/constants.py}): as the rate limit's message names it. */
    public enum KeyType {
        /** "test": research mode; sends to anyone, no daily limit. */
        TEST,
        /** "normal", called live: in trial mode only to the team; the daily limit applies. */
        NORMAL,
        /** "team": only to the team; the daily limit applies. */
        TEAM;

        /** The name in {@code RateLimitError}'s message ({@code LIVE} for a normal key). */
        String messageName() {
            return this == NORMAL ? "LIVE" : name();
        }
    }

    /**
     * A template of a service: its placeholders are {@code ((name))} in subject and body (a conditional
     * {@code ((name??text))} counts as {@code name}), in order of first appearance, each once, as NotifyNL's
     * {@code placeholders} lists them.
     *
     * @param type {@code email}, {@code sms}, {@code letter} or {@code messagebox}
     */
    public record Template(UUID id, String name, String type, String subject, String body) {

        private static final java.util.regex.Pattern PLACEHOLDER =
                java.util.regex.Pattern.compile("\\(\\(([^()]+)\\)\\)");

        public Template {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(type, "type");
        }

        /** An e-mail template that asks for these placeholders (none: a plain message). */
        public static Template email(UUID id, String... placeholders) {
            StringBuilder body = new StringBuilder("Er staat een bericht voor u klaar.");
            for (String placeholder : placeholders) {
                body.append("\n")
                        .append(placeholder)
                        .append(": ((")
                        .append(placeholder)
                        .append("))");
            }
            return new Template(id, "Simulator template", "email", SendEmailEndpoint.SUBJECT, body.toString());
        }

        /** The same template, of another kind (NotifyNL refuses to send an SMS template as e-mail). */
        public Template ofType(String otherType) {
            return new Template(id, name, otherType, subject, body);
        }

        /** Its placeholders, subject first, each once, as spelled (a conditional's name without {@code ??…}). */
        public List<String> placeholders() {
            java.util.LinkedHashSet<String> found = new java.util.LinkedHashSet<>();
            for (String part : new String[] {subject == null ? "" : subject, body == null ? "" : body}) {
                java.util.regex.Matcher matcher = PLACEHOLDER.matcher(part);
                while (matcher.find()) {
                    String name = matcher.group(1);
                    int conditional = name.indexOf("??");
                    found.add((conditional < 0 ? name : name.substring(0, conditional)).strip());
                }
            }
            return List.copyOf(found);
        }
    }

    /**
     * The simulator's settings; build with {@link #builder()} or take {@link #defaults()}.
     *
     * @param port                  TCP port; 0 picks a free one
     * @param bindAddress           the address to listen on
     * @param callbackUrl           where delivery receipts go; null sends none
     * @param services              the services it knows, at least one, each with a different service id; the first
     *                              is the one {@link #apiKey()}, {@link #callbackBearerToken()} and the builder's
     *                              single-service setters are about
     * @param callbackDelay         from the 201 to the outcome and its callback
     * @param callbackRetryInterval between callback attempts (Notify: 5 minutes)
     * @param pageSize              page size of the list endpoint (Notify: 250)
     * @param log                   receives one line per request and callback; never personal data
     * @param clock                 the time of NotifyNL's notifications, outcomes and receipts (default the system
     *                              clock; a test that moves the NMC's clock passes the same one, with a zero
     *                              callback delay); API-key tokens are always checked against the real time
     */
    public record Config(
            int port,
            String bindAddress,
            URI callbackUrl,
            List<Service> services,
            Duration callbackDelay,
            Duration callbackRetryInterval,
            int pageSize,
            Consumer<String> log,
            Clock clock) {

        public Config {
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("port must be 0..65535, got " + port);
            }
            Objects.requireNonNull(bindAddress, "bindAddress");
            services = List.copyOf(services);
            if (services.isEmpty()) {
                throw new IllegalArgumentException("at least one service");
            }
            if (services.stream().map(Service::serviceId).distinct().count() != services.size()) {
                throw new IllegalArgumentException("every service needs its own service id");
            }
            java.util.Set<UUID> templates = new java.util.HashSet<>();
            for (Service service : services) {
                for (UUID template : service.templateIds()) {
                    if (!templates.add(template)) {
                        throw new IllegalArgumentException("template " + template + " belongs to two services");
                    }
                }
            }
            if (callbackUrl != null) {
                services.forEach(
                        service -> Objects.requireNonNull(service.callbackBearerToken(), "callbackBearerToken"));
                if (!"http".equals(callbackUrl.getScheme()) && !"https".equals(callbackUrl.getScheme())) {
                    throw new IllegalArgumentException("callbackUrl must be http(s), got " + callbackUrl);
                }
            }
            requireNotNegative(callbackDelay, "callbackDelay");
            requireNotNegative(callbackRetryInterval, "callbackRetryInterval");
            if (pageSize < 1) {
                throw new IllegalArgumentException("pageSize must be at least 1, got " + pageSize);
            }
            Objects.requireNonNull(log, "log");
            Objects.requireNonNull(clock, "clock");
        }

        /** A random port on 127.0.0.1, the default URLs, token, key, delays and page size; no log. */
        public static Config defaults() {
            return builder().build();
        }

        public static Builder builder() {
            return new Builder();
        }

        public Builder toBuilder() {
            Builder builder = new Builder()
                    .port(port)
                    .bindAddress(bindAddress)
                    .callbackUrl(callbackUrl)
                    .callbackBearerToken(callbackBearerToken())
                    .apiKey(apiKey())
                    .templateIds(services.getFirst().templateIds())
                    .templates(services.getFirst().templates())
                    .keyType(services.getFirst().keyType())
                    .callbackDelay(callbackDelay)
                    .callbackRetryInterval(callbackRetryInterval)
                    .pageSize(pageSize)
                    .log(log)
                    .clock(clock);
            services.stream().skip(1).forEach(builder::addService);
            return builder;
        }

        /** The first service's API key. */
        public String apiKey() {
            return services.getFirst().apiKey();
        }

        /** The first service's callback token. */
        public String callbackBearerToken() {
            return services.getFirst().callbackBearerToken();
        }

        /** The first service's id: the 36 characters before the last 37 of its API key (as the official client). */
        public String serviceId() {
            return services.getFirst().serviceId();
        }

        /** The service with this id. */
        Service service(UUID serviceId) {
            return services.stream()
                    .filter(service -> service.serviceId().equals(serviceId.toString()))
                    .findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("no service " + serviceId));
        }

        /** Leaves the API keys' secrets and the callback tokens out. */
        @Override
        public String toString() {
            return "Config[port=" + port + ", bindAddress=" + bindAddress + ", callbackUrl=" + callbackUrl
                    + ", services=" + services + ", callbackDelay=" + callbackDelay
                    + ", callbackRetryInterval=" + callbackRetryInterval + ", pageSize=" + pageSize + "]";
        }

        private static void requireNotNegative(Duration duration, String name) {
            Objects.requireNonNull(duration, name);
            if (duration.isNegative()) {
                throw new IllegalArgumentException(name + " must not be negative, got " + duration);
            }
        }

        /** Starts from the defaults; every setter replaces one field. */
        public static final class Builder {
            private int port = 0;
            private String bindAddress = DEFAULT_BIND_ADDRESS;
            private URI callbackUrl = URI.create(DEFAULT_CALLBACK_URL);
            private String callbackBearerToken = DEFAULT_CALLBACK_TOKEN;
            private String apiKey = DEFAULT_API_KEY;
            private java.util.Set<UUID> templateIds = java.util.Set.of();
            private List<Template> templates = List.of();
            private KeyType keyType = KeyType.TEST;
            private final List<Service> moreServices = new java.util.ArrayList<>();
            private Duration callbackDelay = DEFAULT_CALLBACK_DELAY;
            private Duration callbackRetryInterval = DEFAULT_CALLBACK_RETRY_INTERVAL;
            private int pageSize = DEFAULT_PAGE_SIZE;
            private Consumer<String> log = line -> {};
            private Clock clock = Clock.systemUTC();

            private Builder() {}

            public Builder port(int port) {
                this.port = port;
                return this;
            }

            public Builder bindAddress(String bindAddress) {
                this.bindAddress = bindAddress;
                return this;
            }

            /** Null: send no callbacks. */
            public Builder callbackUrl(URI callbackUrl) {
                this.callbackUrl = callbackUrl;
                return this;
            }

            /** The first service's callback token. */
            public Builder callbackBearerToken(String callbackBearerToken) {
                this.callbackBearerToken = callbackBearerToken;
                return this;
            }

            /** The first service's API key. */
            public Builder apiKey(String apiKey) {
                this.apiKey = apiKey;
                return this;
            }

            /** The first service's templates (none: any template no other service lists). */
            public Builder templateIds(java.util.Set<UUID> templateIds) {
                this.templateIds = templateIds;
                return this;
            }

            /** The first service's templates with content (placeholders). */
            public Builder templates(List<Template> templates) {
                this.templates = List.copyOf(templates);
                return this;
            }

            /** The type of the first service's API key (default {@code TEST}). */
            public Builder keyType(KeyType keyType) {
                this.keyType = keyType;
                return this;
            }

            /** One more service, after the first. */
            public Builder addService(Service service) {
                this.moreServices.add(service);
                return this;
            }

            public Builder callbackDelay(Duration callbackDelay) {
                this.callbackDelay = callbackDelay;
                return this;
            }

            public Builder callbackRetryInterval(Duration callbackRetryInterval) {
                this.callbackRetryInterval = callbackRetryInterval;
                return this;
            }

            public Builder pageSize(int pageSize) {
                this.pageSize = pageSize;
                return this;
            }

            /** For example {@code System.out::println}; lines carry no personal data. */
            public Builder log(Consumer<String> log) {
                this.log = log;
                return this;
            }

            public Builder clock(Clock clock) {
                this.clock = clock;
                return this;
            }

            public Config build() {
                List<Service> services = new java.util.ArrayList<>();
                services.add(new Service(apiKey, callbackBearerToken, templateIds, templates, keyType));
                services.addAll(moreServices);
                return new Config(
                        port,
                        bindAddress,
                        callbackUrl,
                        services,
                        callbackDelay,
                        callbackRetryInterval,
                        pageSize,
                        log,
                        clock);
            }
        }
    }
}
