package nl.overheid.moz.nmc.webhook;

import io.helidon.config.Config;
import java.net.URI;
import java.time.Duration;

/**
 * The {@code webhook} configuration.
 *
 * @param issuer              {@code iss} of the webhook's tokens: the NMC
 * @param tokenLifetime       {@code exp} - {@code iat}; at most five minutes
 * @param jwksMaxAge          how long a DV may cache the JWKS; a new key is published at least this long
 *                            before it signs
 * @param connectTimeout      connecting to the DV's webhook
 * @param readTimeout         the whole exchange after connecting, the answer included
 * @param maxResponseBytes    a longer answer counts as a failed delivery
 * @param batchSize           events per call
 * @param idleInterval        how soon a webhook with nothing to deliver looks again
 * @param retryBase           the wait after a first failure (doubling per failure, until the pause)
 * @param pauseBase           the first pause after the agreed failures in a row (doubling per pause)
 * @param pauseMax            the longest pause: one day
 * @param allowPrivateTargets dev only: {@code http}, any port, and loopback or private addresses are allowed
 * @param allowedPorts        the ports a webhook or management channel URL may name (443 unless configured)
 */
public record WebhookSettings(
        URI issuer,
        Duration tokenLifetime,
        Duration jwksMaxAge,
        Duration connectTimeout,
        Duration readTimeout,
        int maxResponseBytes,
        int batchSize,
        Duration idleInterval,
        Duration retryBase,
        Duration pauseBase,
        Duration pauseMax,
        boolean allowPrivateTargets,
        java.util.Set<Integer> allowedPorts) {

    static final Duration MAX_TOKEN_LIFETIME = Duration.ofMinutes(5);

    public WebhookSettings {
        if (tokenLifetime.compareTo(MAX_TOKEN_LIFETIME) > 0 || tokenLifetime.isNegative() || tokenLifetime.isZero()) {
            throw new IllegalArgumentException("webhook.token-lifetime must lie between 0 and 5 minutes");
        }
        if (batchSize < 1 || batchSize > 1000) {
            throw new IllegalArgumentException("webhook.batch-size must lie between 1 and 1000");
        }
        if (pauseMax.compareTo(Duration.ofDays(1)) > 0) {
            throw new IllegalArgumentException("webhook.pause-max must be at most one day");
        }
    }

    /** The defaults: tokens of five minutes, calls of 2 s to connect and 10 s in all, batches of 100, pauses up to a day. */
    public static WebhookSettings defaults() {
        return new WebhookSettings(
                URI.create("https://nmc.moza.overheid.nl"),
                Duration.ofMinutes(5),
                Duration.ofMinutes(5),
                Duration.ofSeconds(2),
                Duration.ofSeconds(10),
                64 * 1024,
                100,
                Duration.ofSeconds(2),
                Duration.ofSeconds(10),
                Duration.ofMinutes(1),
                Duration.ofDays(1),
                false,
                java.util.Set.of(443));
    }

    public static WebhookSettings from(Config webhook) {
        WebhookSettings d = defaults();
        return new WebhookSettings(
                webhook.get("issuer").asString().map(URI::create).orElse(d.issuer()),
                webhook.get("token-lifetime").as(Duration.class).orElse(d.tokenLifetime()),
                webhook.get("jwks-max-age").as(Duration.class).orElse(d.jwksMaxAge()),
                webhook.get("connect-timeout").as(Duration.class).orElse(d.connectTimeout()),
                webhook.get("read-timeout").as(Duration.class).orElse(d.readTimeout()),
                webhook.get("max-response-bytes").asInt().orElse(d.maxResponseBytes()),
                webhook.get("batch-size").asInt().orElse(d.batchSize()),
                webhook.get("idle-interval").as(Duration.class).orElse(d.idleInterval()),
                webhook.get("retry-base").as(Duration.class).orElse(d.retryBase()),
                webhook.get("pause-base").as(Duration.class).orElse(d.pauseBase()),
                webhook.get("pause-max").as(Duration.class).orElse(d.pauseMax()),
                webhook.get("allow-private-targets").asBoolean().orElse(d.allowPrivateTargets()),
                webhook.get("allowed-ports")
                        .asList(Integer.class)
                        .map(java.util.Set::copyOf)
                        .orElse(d.allowedPorts()));
    }

    /** The wait after the n-th failure in a row (n ≥ 1), before the webhook pauses. */
    Duration retryAfter(int failures) {
        return doubled(retryBase, failures - 1, pauseBase);
    }

    /** The length of the n-th pause in a row (n ≥ 1). */
    Duration pause(int pauses) {
        return doubled(pauseBase, pauses - 1, pauseMax);
    }

    private static Duration doubled(Duration base, int times, Duration max) {
        Duration wait = base;
        for (int i = 0; i < times && wait.compareTo(max) < 0; i++) {
            wait = wait.multipliedBy(2);
        }
        return wait.compareTo(max) > 0 ? max : wait;
    }

    public WebhookSettings withIssuer(URI issuer) {
        return new WebhookSettings(
                issuer,
                tokenLifetime,
                jwksMaxAge,
                connectTimeout,
                readTimeout,
                maxResponseBytes,
                batchSize,
                idleInterval,
                retryBase,
                pauseBase,
                pauseMax,
                allowPrivateTargets,
                allowedPorts);
    }

    public WebhookSettings withTokenLifetime(Duration tokenLifetime) {
        return new WebhookSettings(
                issuer,
                tokenLifetime,
                jwksMaxAge,
                connectTimeout,
                readTimeout,
                maxResponseBytes,
                batchSize,
                idleInterval,
                retryBase,
                pauseBase,
                pauseMax,
                allowPrivateTargets,
                allowedPorts);
    }

    public WebhookSettings withJwksMaxAge(Duration jwksMaxAge) {
        return new WebhookSettings(
                issuer,
                tokenLifetime,
                jwksMaxAge,
                connectTimeout,
                readTimeout,
                maxResponseBytes,
                batchSize,
                idleInterval,
                retryBase,
                pauseBase,
                pauseMax,
                allowPrivateTargets,
                allowedPorts);
    }

    public WebhookSettings withConnectTimeout(Duration connectTimeout) {
        return new WebhookSettings(
                issuer,
                tokenLifetime,
                jwksMaxAge,
                connectTimeout,
                readTimeout,
                maxResponseBytes,
                batchSize,
                idleInterval,
                retryBase,
                pauseBase,
                pauseMax,
                allowPrivateTargets,
                allowedPorts);
    }

    public WebhookSettings withReadTimeout(Duration readTimeout) {
        return new WebhookSettings(
                issuer,
                tokenLifetime,
                jwksMaxAge,
                connectTimeout,
                readTimeout,
                maxResponseBytes,
                batchSize,
                idleInterval,
                retryBase,
                pauseBase,
                pauseMax,
                allowPrivateTargets,
                allowedPorts);
    }

    public WebhookSettings withMaxResponseBytes(int maxResponseBytes) {
        return new WebhookSettings(
                issuer,
                tokenLifetime,
                jwksMaxAge,
                connectTimeout,
                readTimeout,
                maxResponseBytes,
                batchSize,
                idleInterval,
                retryBase,
                pauseBase,
                pauseMax,
                allowPrivateTargets,
                allowedPorts);
    }

    public WebhookSettings withBatchSize(int batchSize) {
        return new WebhookSettings(
                issuer,
                tokenLifetime,
                jwksMaxAge,
                connectTimeout,
                readTimeout,
                maxResponseBytes,
                batchSize,
                idleInterval,
                retryBase,
                pauseBase,
                pauseMax,
                allowPrivateTargets,
                allowedPorts);
    }

    public WebhookSettings withIdleInterval(Duration idleInterval) {
        return new WebhookSettings(
                issuer,
                tokenLifetime,
                jwksMaxAge,
                connectTimeout,
                readTimeout,
                maxResponseBytes,
                batchSize,
                idleInterval,
                retryBase,
                pauseBase,
                pauseMax,
                allowPrivateTargets,
                allowedPorts);
    }

    public WebhookSettings withRetryBase(Duration retryBase) {
        return new WebhookSettings(
                issuer,
                tokenLifetime,
                jwksMaxAge,
                connectTimeout,
                readTimeout,
                maxResponseBytes,
                batchSize,
                idleInterval,
                retryBase,
                pauseBase,
                pauseMax,
                allowPrivateTargets,
                allowedPorts);
    }

    public WebhookSettings withPauseBase(Duration pauseBase) {
        return new WebhookSettings(
                issuer,
                tokenLifetime,
                jwksMaxAge,
                connectTimeout,
                readTimeout,
                maxResponseBytes,
                batchSize,
                idleInterval,
                retryBase,
                pauseBase,
                pauseMax,
                allowPrivateTargets,
                allowedPorts);
    }

    public WebhookSettings withPauseMax(Duration pauseMax) {
        return new WebhookSettings(
                issuer,
                tokenLifetime,
                jwksMaxAge,
                connectTimeout,
                readTimeout,
                maxResponseBytes,
                batchSize,
                idleInterval,
                retryBase,
                pauseBase,
                pauseMax,
                allowPrivateTargets,
                allowedPorts);
    }

    public WebhookSettings withAllowPrivateTargets(boolean allowPrivateTargets) {
        return new WebhookSettings(
                issuer,
                tokenLifetime,
                jwksMaxAge,
                connectTimeout,
                readTimeout,
                maxResponseBytes,
                batchSize,
                idleInterval,
                retryBase,
                pauseBase,
                pauseMax,
                allowPrivateTargets,
                allowedPorts);
    }

    public WebhookSettings withAllowedPorts(java.util.Set<Integer> allowedPorts) {
        return new WebhookSettings(
                issuer,
                tokenLifetime,
                jwksMaxAge,
                connectTimeout,
                readTimeout,
                maxResponseBytes,
                batchSize,
                idleInterval,
                retryBase,
                pauseBase,
                pauseMax,
                allowPrivateTargets,
                allowedPorts);
    }
}
