package nl.overheid.moz.nmc.register;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;

/**
 * What a DV agreed at onboarding about feedback (design §8): its optional webhook and the failures in a row
 * after which it pauses, the period after which an unacknowledged terminal status is reported on its
 * management channel, and the age after which a cursor is gone.
 *
 * @param webhookUrl             the DV's webhook, or null (the feed only)
 * @param webhookMaxFailures     failed deliveries in a row before the webhook pauses
 * @param acknowledgementPeriod  a terminal status not acknowledged within this period is reported
 * @param maxCursorAge           a cursor older than this gets 410 and no longer holds back cleanup
 * @param managementChannel      where reports go (an https endpoint of the DV's management), or null
 */
public record Contract(
        URI webhookUrl,
        int webhookMaxFailures,
        Duration acknowledgementPeriod,
        Duration maxCursorAge,
        URI managementChannel) {

    public static final int DEFAULT_WEBHOOK_MAX_FAILURES = 10;
    public static final Duration DEFAULT_ACKNOWLEDGEMENT_PERIOD = Duration.ofDays(7);
    public static final Duration DEFAULT_MAX_CURSOR_AGE = Duration.ofDays(30);

    public Contract {
        Objects.requireNonNull(acknowledgementPeriod, "bevestigingstermijn");
        Objects.requireNonNull(maxCursorAge, "maxCursorleeftijd");
        if (webhookMaxFailures < 1) {
            throw new IllegalArgumentException("webhook-max-mislukkingen must be at least 1");
        }
        if (acknowledgementPeriod.isNegative()
                || acknowledgementPeriod.isZero()
                || maxCursorAge.isNegative()
                || maxCursorAge.isZero()) {
            throw new IllegalArgumentException("bevestigingstermijn and max-cursorleeftijd must be positive");
        }
    }

    /** The defaults of the schema: no webhook, no management channel. */
    public static Contract defaults() {
        return new Contract(
                null, DEFAULT_WEBHOOK_MAX_FAILURES, DEFAULT_ACKNOWLEDGEMENT_PERIOD, DEFAULT_MAX_CURSOR_AGE, null);
    }
}
