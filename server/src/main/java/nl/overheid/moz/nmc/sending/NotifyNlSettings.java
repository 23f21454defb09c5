package nl.overheid.moz.nmc.sending;

import io.helidon.config.Config;
import java.net.URI;
import java.time.Duration;

/**
 * NotifyNL ({@code notifynl} subtree).
 *
 * @param baseUrl        NotifyNL's API, e.g. {@code https://api.notifynl.nl}
 * @param apiKey         {@code {keyname}-{serviceId}-{secret}}, as NotifyNL issues it
 * @param connectTimeout bound of a connection attempt (a refused or timed-out connection certainly sent nothing)
 * @param readTimeout    bound of waiting for the answer (after it, the e-mail may have been accepted)
 */
public record NotifyNlSettings(String baseUrl, String apiKey, Duration connectTimeout, Duration readTimeout) {

    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
    public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(15);
    /** {@code -} + a 36-character service id + {@code -} + a 36-character secret, after a key name. */
    private static final int MIN_API_KEY_LENGTH = 75;

    public NotifyNlSettings {
        URI.create(baseUrl);
        if (apiKey == null || apiKey.length() < MIN_API_KEY_LENGTH) {
            throw new IllegalArgumentException("notifynl.api-key must be a NotifyNL API key");
        }
    }

    public static NotifyNlSettings from(Config notifynl) {
        return new NotifyNlSettings(
                notifynl.get("base-url").asString().orElseThrow(
                        () -> new IllegalArgumentException("notifynl.base-url is required")),
                notifynl.get("api-key").asString().orElse(null),
                notifynl.get("connect-timeout").as(Duration.class).orElse(DEFAULT_CONNECT_TIMEOUT),
                notifynl.get("read-timeout").as(Duration.class).orElse(DEFAULT_READ_TIMEOUT));
    }

    /** The service id inside the key: the 36 characters before the last 37 (as Notify's own clients read it). */
    public String serviceId() {
        return apiKey.substring(apiKey.length() - 73, apiKey.length() - 37);
    }

    /** The secret that signs the key's JWTs: the last 36 characters. */
    public String secret() {
        return apiKey.substring(apiKey.length() - 36);
    }
}
