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
 * @param webhookMaxMislukkingen failed deliveries in a row before the webhook pauses
 * @param bevestigingstermijn    a terminal status not acknowledged within this period is reported
 * @param maxCursorleeftijd      a cursor older than this gets 410 and no longer holds back cleanup
 * @param beheerkanaal           where reports go (an https endpoint of the DV's management), or null
 */
public record Contract(
        URI webhookUrl,
        int webhookMaxMislukkingen,
        Duration acknowledgementPeriod,
        Duration maxCursorleeftijd,
        URI managementChannel) {

    public static final int DEFAULT_WEBHOOK_MAX_MISLUKKINGEN = 10;
    public static final Duration DEFAULT_BEVESTIGINGSTERMIJN = Duration.ofDays(7);
    public static final Duration DEFAULT_MAX_CURSORLEEFTIJD = Duration.ofDays(30);

    public Contract {
        Objects.requireNonNull(acknowledgementPeriod, "bevestigingstermijn");
        Objects.requireNonNull(maxCursorleeftijd, "maxCursorleeftijd");
        if (webhookMaxMislukkingen < 1) {
            throw new IllegalArgumentException("webhook-max-mislukkingen must be at least 1");
        }
        if (acknowledgementPeriod.isNegative()
                || acknowledgementPeriod.isZero()
                || maxCursorleeftijd.isNegative()
                || maxCursorleeftijd.isZero()) {
            throw new IllegalArgumentException("bevestigingstermijn and max-cursorleeftijd must be positive");
        }
    }

    /** The defaults of the schema: no webhook, no management channel. */
    public static Contract defaults() {
        return new Contract(
                null, DEFAULT_WEBHOOK_MAX_MISLUKKINGEN, DEFAULT_BEVESTIGINGSTERMIJN, DEFAULT_MAX_CURSORLEEFTIJD, null);
    }
}
