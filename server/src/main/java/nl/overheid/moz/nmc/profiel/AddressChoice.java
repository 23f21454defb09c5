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

    /**
     * NotifyNL's own check ({@code notifications-utils}, {@code recipients.validate_email_address}): an address it
     * refuses would end the notification niet-bezorgbaar though the party may have another, so it is not chosen.
     */
    private static final Pattern ADDRESS = Pattern.compile(
            "^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~\\-]+@([^.@][^@\\s\\x1C-\\x1F]+)$", Pattern.UNICODE_CHARACTER_CLASS);

    private static final Pattern HOSTNAME_LABEL =
            Pattern.compile("^(xn|[a-z0-9]+)(-?-[a-z0-9]+)*$", Pattern.CASE_INSENSITIVE);
    private static final Pattern TOP_LEVEL_LABEL =
            Pattern.compile("^([a-z]{2,63}|xn--([a-z0-9]+-)*[a-z0-9]+)$", Pattern.CASE_INSENSITIVE);
    // notifynl-utils formatters (7f8ffc3): OBSCURE_ZERO_WIDTH_WHITESPACE and OBSCURE_FULL_WIDTH_WHITESPACE, removed
    // anywhere; then only Python's string.whitespace is stripped from the ends. Python's \s (a str pattern) is
    // Unicode's white space and U+001C-001F; Java's, with UNICODE_CHARACTER_CLASS, lacks the latter four.
    private static final Pattern OBSCURE_WHITESPACE =
            Pattern.compile("[\\u180E\\u200B\\u200C\\u200D\\u2060\\uFEFF\\u2028\\u2029\\u00A0\\u202F]");
    private static final Pattern SURROUNDING_WHITESPACE =
            Pattern.compile("^[ \\t\\n\\r\\u000B\\f]+|[ \\t\\n\\r\\u000B\\f]+$");

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
                && notifyNlTakes(contact.value())
                && (contact.verified() || allowUnverified);
    }

    /**
     * The address as NotifyNL validates it ({@code strip_and_remove_obscure_whitespace}), and so as it is sent:
     * NotifyNL stores and echoes in its receipts what it was sent, and a receipt whose {@code to} holds a control
     * character is one the callback refuses.
     */
    public static String normalised(String raw) {
        return SURROUNDING_WHITESPACE
                .matcher(OBSCURE_WHITESPACE.matcher(raw).replaceAll(""))
                .replaceAll("");
    }

    /**
     * Whether NotifyNL accepts the address: after stripping (also zero-width) whitespace, at most 320 characters, no
     * {@code ..}, a local part of the allowed characters, a host name of two or more IDNA labels of at most 63
     * characters and a top-level label of letters (or punycode). The NotifyNL simulator holds the same rule, as the
     * party it stands in for.
     */
    static boolean notifyNlTakes(String raw) {
        String address = normalised(raw);
        if (address.length() > 320 || address.contains("..")) {
            return false;
        }
        java.util.regex.Matcher matcher = ADDRESS.matcher(address);
        if (!matcher.matches()) {
            return false;
        }
        String hostname;
        try {
            hostname = java.net.IDN.toASCII(matcher.group(1), java.net.IDN.ALLOW_UNASSIGNED);
        } catch (IllegalArgumentException notIdna) {
            return false;
        }
        String[] labels = hostname.split("\\.", -1);
        if (hostname.length() > 253 || labels.length < 2) {
            return false;
        }
        for (String label : labels) {
            if (label.isEmpty()
                    || label.length() > 63
                    || !HOSTNAME_LABEL.matcher(label).matches()) {
                return false;
            }
        }
        return TOP_LEVEL_LABEL.matcher(labels[labels.length - 1]).matches();
    }

    private static boolean same(String a, String b) {
        return a != null && b != null && a.toLowerCase(Locale.ROOT).equals(b.toLowerCase(Locale.ROOT));
    }
}
