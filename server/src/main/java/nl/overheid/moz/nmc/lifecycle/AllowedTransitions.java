package nl.overheid.moz.nmc.lifecycle;

import static nl.overheid.moz.nmc.lifecycle.NotificatieStatus.AANGENOMEN;
import static nl.overheid.moz.nmc.lifecycle.NotificatieStatus.BEZORGD;
import static nl.overheid.moz.nmc.lifecycle.NotificatieStatus.BEZORGSTATUS_ONBEKEND;
import static nl.overheid.moz.nmc.lifecycle.NotificatieStatus.DEFINITIEF_BEZORGD;
import static nl.overheid.moz.nmc.lifecycle.NotificatieStatus.GEANNULEERD;
import static nl.overheid.moz.nmc.lifecycle.NotificatieStatus.IN_VERZENDING;
import static nl.overheid.moz.nmc.lifecycle.NotificatieStatus.NIET_BEZORGBAAR;
import static nl.overheid.moz.nmc.lifecycle.NotificatieStatus.TECHNISCH_MISLUKT;
import static nl.overheid.moz.nmc.lifecycle.NotificatieStatus.VERLOPEN;
import static nl.overheid.moz.nmc.lifecycle.NotificatieStatus.VERZONDEN;

import java.util.Set;

/**
 * The application's copy of the allowed (van, naar) pairs of design §7.2. The trigger holds the same table
 * ({@code toegestane_overgang}); a test checks that both are equal. {@code van == null} is acceptance.
 */
public final class AllowedTransitions {

    /** One allowed pair. */
    public record Pair(NotificatieStatus from, NotificatieStatus to) {}

    public static final Set<Pair> PAIRS = Set.of(
            new Pair(null, AANGENOMEN),
            new Pair(AANGENOMEN, IN_VERZENDING),
            new Pair(AANGENOMEN, GEANNULEERD),
            new Pair(AANGENOMEN, VERLOPEN),
            new Pair(AANGENOMEN, TECHNISCH_MISLUKT),
            new Pair(IN_VERZENDING, VERZONDEN),
            new Pair(IN_VERZENDING, NIET_BEZORGBAAR),
            new Pair(IN_VERZENDING, VERLOPEN),
            new Pair(IN_VERZENDING, TECHNISCH_MISLUKT),
            new Pair(VERZONDEN, VERZONDEN),
            new Pair(VERZONDEN, BEZORGD),
            new Pair(VERZONDEN, NIET_BEZORGBAAR),
            new Pair(VERZONDEN, TECHNISCH_MISLUKT),
            new Pair(VERZONDEN, VERLOPEN),
            new Pair(VERZONDEN, BEZORGSTATUS_ONBEKEND),
            new Pair(BEZORGD, DEFINITIEF_BEZORGD),
            new Pair(BEZORGD, VERZONDEN),
            new Pair(BEZORGD, NIET_BEZORGBAAR),
            new Pair(BEZORGD, VERLOPEN),
            new Pair(BEZORGSTATUS_ONBEKEND, BEZORGD),
            new Pair(BEZORGSTATUS_ONBEKEND, NIET_BEZORGBAAR));

    private AllowedTransitions() {}

    public static boolean allowed(NotificatieStatus from, NotificatieStatus to) {
        return PAIRS.contains(new Pair(from, to));
    }
}
