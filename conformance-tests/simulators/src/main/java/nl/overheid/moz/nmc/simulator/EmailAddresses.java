package nl.overheid.moz.nmc.simulator;

import java.net.IDN;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Notify's e-mail address check ({@code notifications-utils}, {@code recipients.validate_email_address}):
 * strip (also zero-width) whitespace, at most 320 characters, no {@code ..}, a local part of the allowed
 * characters, and a host name of at least two IDNA-encoded labels of at most 63 characters each with a
 * proper top-level label. A failure makes Notify answer 400 {@code email_address Not a valid email address}.
 */
final class EmailAddresses {

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

    private static final int MAX_ADDRESS_LENGTH = 320;
    private static final int MAX_HOSTNAME_LENGTH = 253;
    private static final int MAX_LABEL_LENGTH = 63;

    private EmailAddresses() {}

    /** Whether Notify would accept this address. */
    static boolean isValid(String raw) {
        String address = normalise(raw);
        if (address.length() > MAX_ADDRESS_LENGTH || address.contains("..")) {
            return false;
        }
        Matcher matcher = ADDRESS.matcher(address);
        if (!matcher.matches()) {
            return false;
        }
        String hostname;
        try {
            hostname = IDN.toASCII(matcher.group(1), IDN.ALLOW_UNASSIGNED);
        } catch (IllegalArgumentException notIdna) {
            return false;
        }
        String[] labels = hostname.split("\\.", -1);
        if (hostname.length() > MAX_HOSTNAME_LENGTH || labels.length < 2) {
            return false;
        }
        for (String label : labels) {
            if (label.isEmpty()
                    || label.length() > MAX_LABEL_LENGTH
                    || !HOSTNAME_LABEL.matcher(label).matches()) {
                return false;
            }
        }
        return TOP_LEVEL_LABEL.matcher(labels[labels.length - 1]).matches();
    }

    /** Notify's {@code strip_and_remove_obscure_whitespace}. */
    static String normalise(String raw) {
        return SURROUNDING_WHITESPACE
                .matcher(OBSCURE_WHITESPACE.matcher(raw).replaceAll(""))
                .replaceAll("");
    }
}
