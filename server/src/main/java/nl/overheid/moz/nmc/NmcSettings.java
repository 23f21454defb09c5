package nl.overheid.moz.nmc;

import io.helidon.config.Config;
import java.net.URI;
import java.time.Duration;
import java.time.Period;

/**
 * Settings outside the subsystems' own subtrees.
 *
 * @param mebvPeriod      the vaststellingstermijn after delivery (7 days; dev: seconds)
 * @param callbackWindow  NotifyNL's callback retry window, the finalise task's margin (5 × 5 minutes)
 * @param eventSource     the CloudEvents {@code source} of the NMC (a URN with the owner's OIN)
 * @param feedMaxLimit    maximum page size of the feed
 * @param maxBodyBytes    largest accepted request body
 * @param maxBulkBodyBytes largest accepted bulk request body (up to 1000 notifications)
 * @param cursorKey       the key that makes feed cursors tamper-evident (32+ bytes, base64 in configuration)
 * @param eventLogRetention the delivery-proof retention of the event log ({@code retention.event-log}, an ISO-8601
 *                        period such as {@code P7Y}): a partition is dropped once its youngest event is older
 */
public record NmcSettings(
        Duration mebvPeriod,
        Duration callbackWindow,
        URI eventSource,
        int feedMaxLimit,
        int maxBodyBytes,
        int maxBulkBodyBytes,
        byte[] cursorKey,
        Period eventLogRetention) {

    public static final Duration DEFAULT_MEBV_PERIOD = Duration.ofDays(7);
    public static final Duration DEFAULT_CALLBACK_WINDOW = Duration.ofMinutes(25);
    public static final int DEFAULT_FEED_MAX_LIMIT = 1000;
    public static final int DEFAULT_MAX_BODY_BYTES = 64 * 1024;
    /** 1000 notifications of about 4 KB each; a bigger submission is split. */
    public static final int DEFAULT_MAX_BULK_BODY_BYTES = 4 * 1024 * 1024;
    /**
     * Until the legal period of the delivery proof is set (design §10), seven years: dropping proof too early
     * cannot be undone. Each environment sets its own.
     */
    public static final Period DEFAULT_EVENT_LOG_RETENTION = Period.ofYears(7);

    public NmcSettings {
        if (mebvPeriod.isNegative() || callbackWindow.isNegative()) {
            throw new IllegalArgumentException("lifecycle periods must not be negative");
        }
        if (feedMaxLimit < 1 || maxBodyBytes < 1024) {
            throw new IllegalArgumentException("feed.max-limit must be positive and http.max-body-bytes at least 1024");
        }
        if (maxBulkBodyBytes < maxBodyBytes) {
            throw new IllegalArgumentException("http.max-bulk-body-bytes must be at least http.max-body-bytes");
        }
        if (cursorKey.length < 32) {
            throw new IllegalArgumentException("feed.cursor-key must be at least 32 bytes (base64)");
        }
    }

    /** How long after a delivery the finalise task is due: the MEBV period plus NotifyNL's callback window. */
    public Duration finaliseMargin() {
        return mebvPeriod.plus(callbackWindow);
    }

    public static NmcSettings from(Config config) {
        return new NmcSettings(
                config.get("lifecycle.mebv-period").as(Duration.class).orElse(DEFAULT_MEBV_PERIOD),
                config.get("lifecycle.callback-window").as(Duration.class).orElse(DEFAULT_CALLBACK_WINDOW),
                URI.create(config.get("feed.source").asString().orElse("urn:nld:oin:00000001234567890000:systeem:nmc")),
                config.get("feed.max-limit").asInt().orElse(DEFAULT_FEED_MAX_LIMIT),
                config.get("http.max-body-bytes").asInt().orElse(DEFAULT_MAX_BODY_BYTES),
                config.get("http.max-bulk-body-bytes").asInt().orElse(DEFAULT_MAX_BULK_BODY_BYTES),
                java.util.Base64.getDecoder().decode(required(config, "feed.cursor-key")),
                config.get("retention.event-log").as(Period.class).orElse(DEFAULT_EVENT_LOG_RETENTION));
    }

    private static String required(Config config, String key) {
        return config.get(key).asString().orElseThrow(() -> new IllegalArgumentException(key + " is required"));
    }
}
