package nl.overheid.moz.nmc.acceptance;

import java.util.List;
import java.util.Map;
import nl.overheid.moz.nmc.register.Berichttype;

/**
 * The personalisation a berichttype's NotifyNL template asks for: acceptance refuses a notification that lacks
 * some of it, naming the fields (never a value), instead of NotifyNL refusing its send later. Answered from what
 * the NMC knows of the template without waiting for NotifyNL; unknown: nothing is missing.
 */
@FunctionalInterface
public interface RequiredPersonalisation {

    /** The template's placeholders {@code personalisation} does not fill, as the template spells them. */
    List<String> missing(Berichttype berichttype, Map<String, String> personalisation);

    /** Checks nothing (a test, or a template the NMC does not know). */
    RequiredPersonalisation NONE = (berichttype, personalisation) -> List.of();
}
