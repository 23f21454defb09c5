package nl.overheid.moz.nmc.register;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import nl.overheid.moz.nmc.refusal.Refusal;

/**
 * The checks every register value passes, whichever way it comes in — the operator API or the seed — so that both
 * refuse the same values with the same field names (JSON pointers of the operator API). Each error names the field
 * and a code, with a Dutch reason that never repeats the value.
 */
public final class RegisterRules {

    /** The identifier types the Profielservice takes (its {@code IdentificatieType}). */
    public static final Set<String> IDENTIFICATIE_TYPEN = Set.of("KVK", "RSIN", "BSN");

    private static final int MAX_NAME = 200;

    private RegisterRules() {}

    /** The checks of a DV's Profielservice fields. */
    public static List<Refusal.Invalid> dienstverlener(String profielNaam, List<String> identificatieTypen) {
        List<Refusal.Invalid> errors = new ArrayList<>();
        name("/profielDienstverlenerNaam", profielNaam, errors);
        if (identificatieTypen != null) {
            if (identificatieTypen.isEmpty()) {
                errors.add(new Refusal.Invalid("/identificatieTypen", "minItems", "Noem minstens één type."));
            }
            for (int i = 0; i < identificatieTypen.size(); i++) {
                if (!IDENTIFICATIE_TYPEN.contains(identificatieTypen.get(i))) {
                    errors.add(new Refusal.Invalid("/identificatieTypen/" + i, "enum", "Moet KVK, RSIN of BSN zijn."));
                }
            }
        }
        return errors;
    }

    /** The longest processing activity the operator API's contract takes (and V31's CHECK). */
    static final int MAX_PROCESSING_ACTIVITY = 2000;

    /** The checks of a berichttype: its processing activity and its dienst at the Profielservice. */
    public static List<Refusal.Invalid> berichttype(String processingActivity, String profielDienstNaam) {
        List<Refusal.Invalid> errors = new ArrayList<>();
        if (!absoluteUri(processingActivity) || processingActivity.length() > MAX_PROCESSING_ACTIVITY) {
            errors.add(new Refusal.Invalid(
                    "/verwerkingsactiviteit",
                    "format",
                    "Moet een absolute URI van hoogstens " + MAX_PROCESSING_ACTIVITY + " tekens zijn."));
        }
        name("/profielDienstNaam", profielDienstNaam, errors);
        return errors;
    }

    private static void name(String field, String value, List<Refusal.Invalid> errors) {
        if (value == null) {
            return;
        }
        if (value.isBlank() || value.length() > MAX_NAME || value.chars().anyMatch(Character::isISOControl)) {
            errors.add(new Refusal.Invalid(
                    field, "pattern", "Moet een naam van 1 tot " + MAX_NAME + " tekens zijn, zonder stuurtekens."));
        }
    }

    private static boolean absoluteUri(String value) {
        try {
            return value != null && URI.create(value).isAbsolute();
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** The errors as one line for a refused start (the seed): fields and reasons, never values. */
    public static String describe(String subject, List<Refusal.Invalid> errors) {
        StringBuilder line = new StringBuilder(subject).append(':');
        for (Refusal.Invalid error : errors) {
            line.append(' ')
                    .append(error.field())
                    .append(" (")
                    .append(error.reason())
                    .append(')');
        }
        return line.toString();
    }
}
