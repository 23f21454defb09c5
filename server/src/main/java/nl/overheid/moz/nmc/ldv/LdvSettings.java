package nl.overheid.moz.nmc.ldv;

import io.helidon.config.Config;
import java.net.URI;
import java.time.Duration;

/**
 * Where the LDV service is ({@code ldv} subtree).
 *
 * @param baseUrl        the LDV write API, e.g. {@code https://ldv.example.nl/api/ldv/v1}
 * @param token          the platform's service token of the NMC
 * @param connectTimeout bound of a connection attempt
 * @param readTimeout    bound of waiting for the acknowledgement
 */
public record LdvSettings(String baseUrl, String token, Duration connectTimeout, Duration readTimeout) {

    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);
    public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(5);

    public LdvSettings {
        URI.create(baseUrl);
        if (token == null || token.isBlank()) {
            throw new IllegalArgumentException("ldv.token is required");
        }
    }

    public static LdvSettings from(Config ldv) {
        return new LdvSettings(
                ldv.get("base-url")
                        .asString()
                        .orElseThrow(() -> new IllegalArgumentException("ldv.base-url is required")),
                ldv.get("token").asString().orElse(null),
                ldv.get("connect-timeout").as(Duration.class).orElse(DEFAULT_CONNECT_TIMEOUT),
                ldv.get("read-timeout").as(Duration.class).orElse(DEFAULT_READ_TIMEOUT));
    }
}
