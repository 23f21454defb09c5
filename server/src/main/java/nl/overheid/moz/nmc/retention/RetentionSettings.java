package nl.overheid.moz.nmc.retention;

import io.helidon.config.Config;
import java.time.Duration;
import java.time.Period;

/**
 * The periods of the privacy lifecycle.
 *
 * @param eraseAfter    {@code privacy.erase-after}: the data key is erased this long after the terminal status
 * @param notifications {@code retention.notifications}: rows are deleted this long after the terminal status
 *                      (the delivery-proof retention; by default the event log's, {@code retention.event-log})
 * @param batchSize     rows per transaction of erasure planning, deletion and re-wrap
 * @param timeBudget    the longest a duty run works before it leaves the rest to the next run
 */
public record RetentionSettings(Duration eraseAfter, Period notifications, int batchSize, Duration timeBudget) {

    public static final Duration DEFAULT_ERASE_AFTER = Duration.ofDays(30);

    public RetentionSettings {
        if (eraseAfter.isNegative() || notifications.isNegative() || batchSize < 1) {
            throw new IllegalArgumentException("retention periods must not be negative, batch-size positive");
        }
    }

    public static RetentionSettings from(Config config, Period eventLogRetention) {
        return new RetentionSettings(
                config.get("privacy.erase-after").as(Duration.class).orElse(DEFAULT_ERASE_AFTER),
                config.get("retention.notifications").as(Period.class).orElse(eventLogRetention),
                config.get("retention.batch-size").asInt().orElse(500),
                config.get("retention.time-budget").as(Duration.class).orElse(Duration.ofSeconds(2)));
    }
}
