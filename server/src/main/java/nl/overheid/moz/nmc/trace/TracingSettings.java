package nl.overheid.moz.nmc.trace;

import io.helidon.config.Config;
import java.net.URI;
import java.time.Duration;

/**
 * Where the NMC's own spans go ({@code tracing} subtree): off unless {@code tracing.otlp.endpoint} is set.
 *
 * @param endpoint    the collector's OTLP/HTTP traces endpoint (e.g. {@code http://collector:4318/v1/traces}); null: off
 * @param ratio       the share of traces kept, decided by the trace id (so every span of a notification gets the same
 *                    decision, however late)
 * @param timeout     bound of one export
 * @param serviceName the resource's {@code service.name}
 */
public record TracingSettings(URI endpoint, double ratio, Duration timeout, String serviceName) {

    public static final double DEFAULT_RATIO = 0.1;
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
    public static final String DEFAULT_SERVICE_NAME = "notificatiemanagementcomponent";

    public TracingSettings {
        if (endpoint != null
                && (endpoint.getHost() == null
                        || !("http".equals(endpoint.getScheme()) || "https".equals(endpoint.getScheme())))) {
            throw new IllegalArgumentException("tracing.otlp.endpoint must be an absolute http(s) URL");
        }
        if (!(ratio >= 0 && ratio <= 1)) {
            throw new IllegalArgumentException("tracing.sampler-ratio must be between 0 and 1");
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("tracing.otlp.timeout must be positive");
        }
        if (serviceName == null || serviceName.isBlank()) {
            throw new IllegalArgumentException("tracing.service-name must not be empty");
        }
    }

    public static TracingSettings from(Config tracing) {
        return new TracingSettings(
                tracing.get("otlp.endpoint")
                        .asString()
                        .filter(value -> !value.isBlank())
                        .map(URI::create)
                        .orElse(null),
                tracing.get("sampler-ratio").asDouble().orElse(DEFAULT_RATIO),
                tracing.get("otlp.timeout").as(Duration.class).orElse(DEFAULT_TIMEOUT),
                tracing.get("service-name").asString().orElse(DEFAULT_SERVICE_NAME));
    }

    public boolean enabled() {
        return endpoint != null;
    }
}
