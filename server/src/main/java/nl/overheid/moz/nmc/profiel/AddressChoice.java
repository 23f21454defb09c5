package nl.overheid.moz.nmc.profiel;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Which of a party's contact data the NMC sends a notification to: one pure function over the Profielservice's
 * answer, so every combination is tested without a call.
 *
 * <p>The rule (issue 15; the proof of concept's order, made exact):
 * <ol>
 *   <li>only entries of type {@code Email} whose value is a usable address; unverified ones
 *       ({@code isGeverifieerd: false}) only when the setting allows them — MOZa's portal tells businesses that
 *       an unverified address receives no notifications;</li>
 *   <li>an entry whose scopes all belong to others is never chosen: a scope belongs to this notification when
 *       its {@code dienstverlenerNaam} is the DV's name at the Profielservice and its {@code dienstNaam} is the
 *       berichttype's dienst or absent (a DV-wide scope); names compare case-insensitively, as the
 *       Profielservice's own filter does;</li>
 *   <li>preference: scoped to this DV and this dienst, then scoped to this DV without a dienst, then unscoped and
 *       {@code isDefault}, then unscoped;</li>
 *   <li>within a tier the latest {@code lastUpdated} wins; then the smallest id, so the choice never depends on
 *       the answer's order (which the Profielservice leaves unspecified).</li>
 * </ol>
 * The Profielservice already narrows its answer to the DV and the dienst; this function does not rely on that.
 */
public final class AddressChoice {

    /** The contract's {@code ContactType} of an e-mail address. */
    public static final String EMAIL_TYPE = "Email";

    /** The same pragmatic check as the DV API's: one @, a dotted domain, RFC 5321 lengths. */
    private static final Pattern EMAIL = Pattern.compile(
            "^(?=.{1,254}\\z)[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
                    + "(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+\\z");

    private AddressChoice() {}

    /** One contactgegeven as the Profielservice answers it. {@link #toString()} leaves the value out. */
    public record Contact(
            UUID id,
            String type,
            String value,
            boolean verified,
            boolean isDefault,
            Instant lastUpdated,
            List<Scope> scopes) {

        public Contact {
            scopes = List.copyOf(scopes);
        }

        @Override
        public String toString() {
            return "Contact[id=" + id + ", type=" + type + ", verified=" + verified + ", isDefault=" + isDefault
                    + ", lastUpdated=" + lastUpdated + ", scopes=" + scopes + "]";
        }
    }

    /** A scope: the DV's name at the Profielservice and, unless it is DV-wide, the dienst. */
    public record Scope(String dienstverlenerNaam, String dienstNaam) {}

    /** The tiers of the rule, best first. */
    public enum Tier {
        DV_AND_DIENST,
        DV_WIDE,
        DEFAULT,
        UNSCOPED
    }

    /**
     * The address to send to, if any.
     *
     * @param contacts           the party's contact data as answered
     * @param dienstverlenerNaam the DV's name at the Profielservice
     * @param dienstNaam         the berichttype's dienst at the Profielservice; null when it has none
     * @param allowUnverified    whether an unverified address may be chosen
     */
    public static Optional<Contact> choose(
            List<Contact> contacts, String dienstverlenerNaam, String dienstNaam, boolean allowUnverified) {
        return contacts.stream()
                .filter(contact -> usable(contact, allowUnverified))
                .filter(contact -> tier(contact, dienstverlenerNaam, dienstNaam).isPresent())
                .min(Comparator.<Contact, Tier>comparing(contact ->
                                tier(contact, dienstverlenerNaam, dienstNaam).orElseThrow())
                        .thenComparing(Contact::lastUpdated, Comparator.nullsLast(Comparator.reverseOrder()))
                        .thenComparing(Contact::id, Comparator.nullsLast(Comparator.naturalOrder())));
    }

    /** The tier an entry falls in for this DV and dienst; empty when its scopes all belong to others. */
    public static Optional<Tier> tier(Contact contact, String dienstverlenerNaam, String dienstNaam) {
        if (contact.scopes().isEmpty()) {
            return Optional.of(contact.isDefault() ? Tier.DEFAULT : Tier.UNSCOPED);
        }
        boolean dvWide = false;
        for (Scope scope : contact.scopes()) {
            if (scope == null || !same(scope.dienstverlenerNaam(), dienstverlenerNaam)) {
                continue;
            }
            if (scope.dienstNaam() == null) {
                dvWide = true;
            } else if (dienstNaam != null && same(scope.dienstNaam(), dienstNaam)) {
                return Optional.of(Tier.DV_AND_DIENST);
            }
        }
        return dvWide ? Optional.of(Tier.DV_WIDE) : Optional.empty();
    }

    private static boolean usable(Contact contact, boolean allowUnverified) {
        return EMAIL_TYPE.equals(contact.type())
                && contact.id() != null
                && contact.value() != null
                && EMAIL.matcher(contact.value()).matches()
                && (contact.verified() || allowUnverified);
    }

    private static boolean same(String a, String b) {
        return a != null && b != null && a.toLowerCase(Locale.ROOT).equals(b.toLowerCase(Locale.ROOT));
    }
}
