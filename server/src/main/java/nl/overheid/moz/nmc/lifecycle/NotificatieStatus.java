package nl.overheid.moz.nmc.lifecycle;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import nl.overheid.moz.nmc.db.DbValue;

/**
 * The status of a notification. Only {@link Transitions} moves a notification between these values.
 */
public enum NotificatieStatus implements DbValue {
    /** Accepted (volgnummer 1); left when the first send starts, by a cancel, by expiry or by exhaustion. */
    AANGENOMEN("aangenomen"),
    /** The first send started (its task's first transaction created attempt 1); left after NotifyNL's answer. */
    IN_VERZENDING("in-verzending"),
    /** An attempt is at NotifyNL; left by a receipt, reconciliation or a resend (which stays here). */
    VERZONDEN("verzonden"),
    /** Delivered but not final: a failure receipt within the MEBV period can still move it. */
    BEZORGD("bezorgd"),
    /** Terminal: the MEBV period passed after delivery. */
    DEFINITIEF_BEZORGD("definitief-bezorgd"),
    /** Terminal: permanently undeliverable, or no contact data. */
    NIET_BEZORGBAAR("niet-bezorgbaar"),
    /** Terminal: the NMC itself failed too often, or NotifyNL failed technically on attempt 2. */
    TECHNISCH_MISLUKT("technisch-mislukt"),
    /** Terminal, but a late receipt may still correct it to bezorgd or niet-bezorgbaar. */
    BEZORGSTATUS_ONBEKEND("bezorgstatus-onbekend"),
    /** Terminal: geldig_tot passed before an attempt could start. */
    VERLOPEN("verlopen"),
    /** Terminal: cancelled by the DV while still aangenomen. */
    GEANNULEERD("geannuleerd");

    /** Statuses that absorb (bezorgstatus-onbekend still accepts a late receipt). */
    public static final Set<NotificatieStatus> TERMINAL = EnumSet.of(
            DEFINITIEF_BEZORGD, NIET_BEZORGBAAR, TECHNISCH_MISLUKT, BEZORGSTATUS_ONBEKEND, VERLOPEN, GEANNULEERD);

    private final String value;

    NotificatieStatus(String value) {
        this.value = value;
    }

    @Override
    public String dbValue() {
        return value;
    }

    public boolean terminal() {
        return TERMINAL.contains(this);
    }

    /**
     * The reasons a DV sees with this status (the DV API's {@code StatusWaarde} and {@code Reden}): niet-bezorgbaar
     * with onbereikbaar or geen-contactgegevens, each other ending with its own, every other status with none.
     */
    public Set<Reden> redenen() {
        return REDENEN.get(this);
    }

    /** {@link #redenen()}, made once: the transition function asks it at every transition. */
    private static final Map<NotificatieStatus, Set<Reden>> REDENEN = redenenPerStatus();

    private static Map<NotificatieStatus, Set<Reden>> redenenPerStatus() {
        Map<NotificatieStatus, Set<Reden>> redenen = new java.util.EnumMap<>(NotificatieStatus.class);
        for (NotificatieStatus status : values()) {
            redenen.put(
                    status,
                    switch (status) {
                        case NIET_BEZORGBAAR -> Set.of(Reden.ONBEREIKBAAR, Reden.GEEN_CONTACTGEGEVENS);
                        case TECHNISCH_MISLUKT -> Set.of(Reden.TECHNISCH);
                        case VERLOPEN -> Set.of(Reden.VERLOPEN);
                        case GEANNULEERD -> Set.of(Reden.GEANNULEERD);
                        default -> Set.of();
                    });
        }
        return java.util.Collections.unmodifiableMap(redenen);
    }

    /** Whether the DV may see {@code reden} (null: none) with this status. */
    public boolean admits(Reden reden) {
        return reden == null ? redenen().isEmpty() : redenen().contains(reden);
    }

    public static NotificatieStatus of(String value) {
        return Arrays.stream(values())
                .filter(s -> s.value.equals(value))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown notificatie status " + value));
    }

    @Override
    public String toString() {
        return value;
    }
}
