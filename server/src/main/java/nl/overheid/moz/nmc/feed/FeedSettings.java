package nl.overheid.moz.nmc.feed;

import io.helidon.config.Config;
import java.time.Duration;

/**
 * The {@code feed} configuration beyond the page's maximum and the cursor key.
 *
 * @param defaultLimit                 events per page when the DV gives no {@code limit}
 * @param rateLimitPerSecond           feed calls per DV per second, over all instances together
 * @param unacknowledgedCheckInterval  how often unacknowledged terminal statuses are counted
 * @param unacknowledgedReportInterval at most one report per DV on its management channel per this period
 * @param managementChannelTimeout     connecting to and answering on the management channel
 */
public record FeedSettings(
        int defaultLimit,
        int rateLimitPerSecond,
        Duration unacknowledgedCheckInterval,
        Duration unacknowledgedReportInterval,
        Duration managementChannelTimeout) {

    public FeedSettings {
        if (defaultLimit < 1 || rateLimitPerSecond < 1) {
            throw new IllegalArgumentException("feed.default-limit and feed.rate-limit-per-second must be positive");
        }
    }

    public static FeedSettings from(Config feed) {
        return new FeedSettings(
                feed.get("default-limit").asInt().orElse(100),
                feed.get("rate-limit-per-second").asInt().orElse(20),
                feed.get("unacknowledged-check-interval").as(Duration.class).orElse(Duration.ofMinutes(15)),
                feed.get("unacknowledged-report-interval").as(Duration.class).orElse(Duration.ofDays(1)),
                feed.get("management-channel-timeout").as(Duration.class).orElse(Duration.ofSeconds(5)));
    }
}
