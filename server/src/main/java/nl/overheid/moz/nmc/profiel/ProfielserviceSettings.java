package nl.overheid.moz.nmc.profiel;

import io.helidon.config.Config;
import java.net.URI;
import java.time.Duration;

/**
 * Where the Profielservice is ({@code profielservice} subtree).
 *
 * @param baseUrl        e.g. {@code https://profielservice.example.nl/api/profielservice/v1} (through FSC)
 * @param token          the FSC access token of the NMC's contract
 * @param connectTimeout bound of a connection attempt
 * @param readTimeout    bound of waiting for the answer
 * @param reportMaxPostponements tries of an invalid-address report before it is parked for an operator
 */
public record ProfielserviceSettings(
        String baseUrl, String token, Duration connectTimeout, Duration readTimeout, int reportMaxPostponements) {

    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);
    public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(5);
    /** With the engine's backoff (capped at 15 minutes) about half a day of tries. */
    public static final int DEFAULT_REPORT_MAX_POSTPONEMENTS = 50;

    public ProfielserviceSettings {
        URI.create(baseUrl);
        if (token == null || token.isBlank()) {
            throw new IllegalArgumentException("profielservice.token is required");
        }
        if (reportMaxPostponements < 1) {
            throw new IllegalArgumentException("profielservice.report-max-postponements must be positive");
        }
    }

    public static ProfielserviceSettings from(Config profielservice) {
        return new ProfielserviceSettings(
                profielservice
                        .get("base-url")
                        .asString()
                        .orElseThrow(() -> new IllegalArgumentException("profielservice.base-url is required")),
                profielservice.get("token").asString().orElse(null),
                profielservice.get("connect-timeout").as(Duration.class).orElse(DEFAULT_CONNECT_TIMEOUT),
                profielservice.get("read-timeout").as(Duration.class).orElse(DEFAULT_READ_TIMEOUT),
                profielservice.get("report-max-postponements").asInt().orElse(DEFAULT_REPORT_MAX_POSTPONEMENTS));
    }
}
