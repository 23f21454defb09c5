package nl.overheid.moz.nmc.lifecycle;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import nl.overheid.moz.nmc.db.DbValue;

/** The status of one send attempt. */
public enum PogingStatus implements DbValue {
    /** Created when a send task starts an attempt; not yet accepted by NotifyNL. */
    GEPLAND("gepland"),
    /** NotifyNL answered 201 (or a receipt proved it did); waiting for a receipt. */
    VERZONDEN("verzonden"),
    /** A {@code delivered} receipt was applied. */
    BEZORGD("bezorgd"),
    /** A {@code temporary-failure} receipt was applied. */
    TIJDELIJK_MISLUKT("tijdelijk-mislukt"),
    /** A {@code permanent-failure} receipt was applied, or NotifyNL refused the send with 400. */
    PERMANENT_MISLUKT("permanent-mislukt"),
    /** A {@code technical-failure} receipt was applied. */
    TECHNISCH_MISLUKT("technisch-mislukt"),
    /** Reconciliation found no outcome (404 or NotifyNL's retention passed). */
    ONBEKEND("onbekend");

    /** An attempt is running while it may still produce an outcome. */
    public static final Set<PogingStatus> RUNNING = EnumSet.of(VERZONDEN, ONBEKEND);

    private final String value;

    PogingStatus(String value) {
        this.value = value;
    }

    @Override
    public String dbValue() {
        return value;
    }

    public boolean running() {
        return RUNNING.contains(this);
    }

    /** A failure receipt was applied: the attempt ended without a delivery. */
    public boolean failed() {
        return this == TIJDELIJK_MISLUKT || this == PERMANENT_MISLUKT || this == TECHNISCH_MISLUKT;
    }

    /** How a notification ends: its terminal status and reason. */
    public record Ending(NotificatieStatus status, Reden reden) {}

    /**
     * How the notification ends when this failure is its last attempt's, no resend left (seed: "op de tweede poging
     * geeft temporary-failure niet-bezorgbaar met reden onbereikbaar en technical-failure technisch-mislukt"; a
     * permanent failure is niet-bezorgbaar on any attempt).
     */
    public Ending endingAsLastAttempt() {
        return switch (this) {
            case TIJDELIJK_MISLUKT, PERMANENT_MISLUKT ->
                new Ending(NotificatieStatus.NIET_BEZORGBAAR, Reden.ONBEREIKBAAR);
            case TECHNISCH_MISLUKT -> new Ending(NotificatieStatus.TECHNISCH_MISLUKT, Reden.TECHNISCH);
            default -> throw new IllegalStateException("attempt status " + this + " is no failure");
        };
    }

    public static PogingStatus of(String value) {
        return Arrays.stream(values())
                .filter(s -> s.value.equals(value))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown poging status " + value));
    }

    @Override
    public String toString() {
        return value;
    }
}
