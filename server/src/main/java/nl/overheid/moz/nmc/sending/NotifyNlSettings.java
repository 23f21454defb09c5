package nl.overheid.moz.nmc.sending;

import io.helidon.config.Config;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * NotifyNL ({@code notifynl} subtree). The NMC sends through several NotifyNL services: every berichttype names
 * its service ({@code berichttype.notify_service}), and each service has its own API key (a template belongs to
 * one service; another service's key gets a 400), its own rate limit (the send budget's per-minute limit) and
 * the bearer token its delivery-receipt callbacks carry.
 *
 * <pre>
 * notifynl:
 *   base-url: https://api.notifynl.nl
 *   callback-token: …            # the services' callback token unless a service has its own
 *   services:
 *     standaard:
 *       api-key: …               # {keyname}-{serviceId}-{secret}, from the environment
 *       per-minute: 3000         # NotifyNL's rate limit of the service (default 3,000)
 *       callback-token: …        # optional
 * </pre>
 *
 * @param baseUrl        NotifyNL's API, e.g. {@code https://api.notifynl.nl}
 * @param services       every configured service by its name (the value of {@code berichttype.notify_service})
 * @param connectTimeout bound of a connection attempt (a refused or timed-out connection certainly sent nothing)
 * @param readTimeout    bound of the whole exchange, answer included (after it, the e-mail may have been accepted)
 * @param maxAnswerBytes the longest answer read; a longer one is refused (and a send looked up by reference)
 * @param setupErrorMaxTries how many of NotifyNL's setup refusals ({@link SetupError}) a send task gets before it
 *                       is parked as {@code mislukt} for an operator; a refused key or service is never parked, it
 *                       is logged this many times and then only counted
 * @param setupErrorMinSpan how long after its first setup refusal a send task is parked at the earliest, however many
 *                       refusals came: a fresh task's backoff (5, 10, 20, 40 s) runs through the tries in 75 s, so a
 *                       proxy answering 400 for a minute would otherwise park every send of that minute
 * @param dailyLimit     the window of NotifyNL's daily limit per service (a calendar day in a time zone)
 * @param templateRefreshInterval how old the known placeholders of a template may get before they are asked again
 * @param uncertainSendWait how long after a send whose outcome is unknown (a time-out, a broken connection, a 5xx) the
 *                       lookup by reference waits: NotifyNL persists the notification late in a request that may run
 *                       some 30 s, so an earlier lookup may miss it and the NMC send the e-mail twice
 */
public record NotifyNlSettings(
        String baseUrl,
        Map<String, Service> services,
        Duration connectTimeout,
        Duration readTimeout,
        int maxAnswerBytes,
        int setupErrorMaxTries,
        Duration setupErrorMinSpan,
        DailyLimitWindow dailyLimit,
        Duration templateRefreshInterval,
        Duration uncertainSendWait) {

    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
    public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(15);
    /** Room for a page of notifications with their rendered bodies; the NMC's own answers are far smaller. */
    public static final int DEFAULT_MAX_ANSWER_BYTES = 4 * 1024 * 1024;

    public static final int DEFAULT_SETUP_ERROR_MAX_TRIES = 5;
    /** Longer than a deploy or a brief fault of what stands in front of NotifyNL; short of an operator's working day. */
    public static final Duration DEFAULT_SETUP_ERROR_MIN_SPAN = Duration.ofMinutes(30);

    public static final Duration DEFAULT_TEMPLATE_REFRESH_INTERVAL = Duration.ofMinutes(15);
    /**
     * NotifyNL's gunicorn timeout (30 s, {@code gunicorn_config.py} of Worth-NL/notifynl-api at 3684cb1) and the
     * {@code EventletTimeout} 504 after 30 s, plus a margin, from the moment the NMC gave up on the answer.
     */
    public static final Duration DEFAULT_UNCERTAIN_SEND_WAIT = Duration.ofSeconds(30);
    /** NotifyNL's (GOV.UK Notify's) default rate limit of a service: 3,000 requests a minute. */
    public static final int DEFAULT_PER_MINUTE = 3000;
    /** {@code -} + a 36-character service id + {@code -} + a 36-character secret, after a key name. */
    private static final int MIN_API_KEY_LENGTH = 75;

    private static final int MIN_CALLBACK_TOKEN_LENGTH = 16;
    /** A service name as {@code berichttype.notify_service} holds it, and as a configuration key can carry it. */
    private static final Pattern SERVICE_NAME = Pattern.compile("^[a-z0-9][a-z0-9-]*$");

    /**
     * One NotifyNL service.
     *
     * @param name          the name berichttypen use ({@code notify_service})
     * @param apiKey        {@code {keyname}-{serviceId}-{secret}}, as NotifyNL issues it
     * @param perMinute     the service's rate limit per minute at NotifyNL: its send budget
     * @param callbackToken the bearer token NotifyNL sends with this service's delivery receipts
     */
    public record Service(String name, String apiKey, int perMinute, String callbackToken) {

        public Service {
            String at = "notifynl.services." + name;
            if (name == null || !SERVICE_NAME.matcher(name).matches()) {
                throw new IllegalArgumentException(
                        "notifynl.services: '" + name + "' is not a service name (a-z, 0-9, -)");
            }
            if (apiKey == null
                    || apiKey.length() < MIN_API_KEY_LENGTH
                    || apiKey.charAt(apiKey.length() - 37) != '-'
                    || apiKey.charAt(apiKey.length() - 74) != '-') {
                throw new IllegalArgumentException(
                        at + ".api-key must be a NotifyNL API key ({keyname}-{serviceId}-{secret})");
            }
            if (perMinute < 2) {
                throw new IllegalArgumentException(
                        at + ".per-minute must be at least 2: one token a minute is reconciliation's");
            }
            if (callbackToken == null || callbackToken.length() < MIN_CALLBACK_TOKEN_LENGTH) {
                throw new IllegalArgumentException(at + ".callback-token (or notifynl.callback-token) must be at least "
                        + MIN_CALLBACK_TOKEN_LENGTH + " characters");
            }
        }

        /** The service id inside the key: the 36 characters before the last 37 (as Notify's own clients read it). */
        public String serviceId() {
            return apiKey.substring(apiKey.length() - 73, apiKey.length() - 37);
        }

        /** The secret that signs the key's JWTs: the last 36 characters. */
        public String secret() {
            return apiKey.substring(apiKey.length() - 36);
        }

        /** Leaves the key's secret and the callback token out. */
        @Override
        public String toString() {
            return "Service[name=" + name + ", serviceId=" + serviceId() + ", perMinute=" + perMinute + "]";
        }
    }

    public NotifyNlSettings {
        URI.create(baseUrl);
        if (maxAnswerBytes < 1024) {
            throw new IllegalArgumentException("notifynl.max-answer-bytes must be at least 1024");
        }
        if (setupErrorMaxTries < 1) {
            throw new IllegalArgumentException("notifynl.setup-error-max-tries must be at least 1");
        }
        if (setupErrorMinSpan.isNegative()) {
            throw new IllegalArgumentException("notifynl.setup-error-min-span must not be negative");
        }
        if (templateRefreshInterval.isNegative() || templateRefreshInterval.isZero()) {
            throw new IllegalArgumentException("notifynl.template-refresh-interval must be positive");
        }
        if (services.isEmpty()) {
            throw new IllegalArgumentException("notifynl.services must configure at least one NotifyNL service "
                    + "(notifynl.services.<name>.api-key)");
        }
        services = Map.copyOf(services);
    }

    public static NotifyNlSettings from(Config notifynl) {
        if (notifynl.get("api-key").exists()) {
            // One key for every berichttype is what sent another service's templates to a 400: refuse it loudly.
            throw new IllegalArgumentException("notifynl.api-key is no longer read: configure each NotifyNL service as "
                    + "notifynl.services.<name>.api-key (the name its berichttypen give as notify-service)");
        }
        String sharedToken = notifynl.get("callback-token").asString().orElse(null);
        Map<String, Service> services = new LinkedHashMap<>();
        for (Config service : notifynl.get("services").asNodeList().orElse(java.util.List.of())) {
            String name = service.name();
            services.put(
                    name,
                    new Service(
                            name,
                            service.get("api-key")
                                    .asString()
                                    .orElseThrow(() -> new IllegalArgumentException(
                                            "notifynl.services." + name + ".api-key is required")),
                            service.get("per-minute").asInt().orElse(DEFAULT_PER_MINUTE),
                            service.get("callback-token").asString().orElse(sharedToken)));
        }
        return new NotifyNlSettings(
                notifynl.get("base-url")
                        .asString()
                        .orElseThrow(() -> new IllegalArgumentException("notifynl.base-url is required")),
                services,
                notifynl.get("connect-timeout").as(Duration.class).orElse(DEFAULT_CONNECT_TIMEOUT),
                notifynl.get("read-timeout").as(Duration.class).orElse(DEFAULT_READ_TIMEOUT),
                notifynl.get("max-answer-bytes").asInt().orElse(DEFAULT_MAX_ANSWER_BYTES),
                notifynl.get("setup-error-max-tries").asInt().orElse(DEFAULT_SETUP_ERROR_MAX_TRIES),
                notifynl.get("setup-error-min-span").as(Duration.class).orElse(DEFAULT_SETUP_ERROR_MIN_SPAN),
                DailyLimitWindow.of(
                        notifynl.get("daily-limit-zone").asString().orElse("UTC"),
                        notifynl.get("daily-limit-margin").as(Duration.class).orElse(DailyLimitWindow.DEFAULT_MARGIN)),
                notifynl.get("template-refresh-interval").as(Duration.class).orElse(DEFAULT_TEMPLATE_REFRESH_INTERVAL),
                notifynl.get("uncertain-send-wait").as(Duration.class).orElse(DEFAULT_UNCERTAIN_SEND_WAIT));
    }

    /** Every service's limit per minute: the send budget of each key. */
    public Map<String, Integer> perMinute() {
        Map<String, Integer> limits = new LinkedHashMap<>();
        services.forEach((name, service) -> limits.put(name, service.perMinute()));
        return limits;
    }
}
