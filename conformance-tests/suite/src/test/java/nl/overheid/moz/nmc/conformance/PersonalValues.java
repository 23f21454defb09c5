package nl.overheid.moz.nmc.conformance;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The personal data a test sent into the NMC, each value made distinctive to the run, and where a text holds one:
 * as written, percent-encoded or as hex, ignoring case (a KVK number only as a word of its own, not inside a longer
 * run of digits or letters), and as base64 in any alignment (a value hidden in a cursor or a token is found too;
 * a KVK number is too short for that).
 */
final class PersonalValues {

    static final String EMAIL = "e-mail address";
    static final String KVK = "KVK number";
    static final String DV_REF = "dvRef";
    static final String PERSONALISATION = "personalisation value";

    private static final SecureRandom RANDOM = new SecureRandom();

    /**
     * One value and the forms it is searched in: {@code folded} ignoring case (as written, percent-encoded, hex),
     * {@code exact} as they are (base64). Literal search, since a scan runs after every round of work.
     */
    record Value(String kind, String value, List<String> folded, List<String> exact) {}

    private final String run = HexFormat.of().toHexDigits(RANDOM.nextInt());
    private final List<Value> values = new CopyOnWriteArrayList<>();
    private final Set<String> kvks = new LinkedHashSet<>();
    private int counter;

    String email(String tag) {
        return add(EMAIL, "pii." + run + "." + tag + "." + next() + "@ontvanger.example.nl");
    }

    /** A KVK number no dev table knows (they start with 1234567 or are 99999999). */
    synchronized String kvk() {
        String kvk;
        do {
            kvk = "8" + String.format("%07d", RANDOM.nextInt(10_000_000));
        } while (!kvks.add(kvk));
        return add(KVK, kvk);
    }

    String dvRef(String tag) {
        return add(DV_REF, "PII-" + run + "-" + tag + "-" + next());
    }

    String personalisation(String tag) {
        return add(PERSONALISATION, "Geheim-" + run + "-" + tag + "-" + next());
    }

    /** A value the NMC must keep as personal data although the test did not make it (a simulator's fixed address). */
    String known(String kind, String value) {
        if (values.stream().noneMatch(v -> v.value().equals(value))) {
            add(kind, value);
        }
        return value;
    }

    List<Value> all() {
        return List.copyOf(values);
    }

    List<String> values(String kind) {
        return values.stream()
                .filter(v -> v.kind().equals(kind))
                .map(Value::value)
                .toList();
    }

    /** One value found in a text: where, and the text around it. */
    record Hit(String kind, String value, String where, String context) {
        @Override
        public String toString() {
            return kind + " " + value + " in " + where + ": …" + context + "…";
        }
    }

    /** Every value of these kinds (all kinds when none are named) that {@code text} holds, once each. */
    List<Hit> scan(String where, String text, String... kinds) {
        List<Hit> hits = new ArrayList<>();
        if (text == null || text.isEmpty()) {
            return hits;
        }
        String lower = text.toLowerCase(Locale.ROOT);
        for (Value value : values) {
            if (kinds.length > 0 && !List.of(kinds).contains(value.kind())) {
                continue;
            }
            int at = -1;
            int length = 0;
            for (String form : value.folded()) {
                at = indexOf(lower, form, value.kind().equals(KVK) && form.equals(value.value()));
                length = form.length();
                if (at >= 0) {
                    break;
                }
            }
            for (int i = 0; at < 0 && i < value.exact().size(); i++) {
                at = text.indexOf(value.exact().get(i));
                length = value.exact().get(i).length();
            }
            if (at >= 0) {
                String context = text.substring(Math.max(0, at - 60), Math.min(text.length(), at + length + 60));
                hits.add(new Hit(value.kind(), value.value(), where, context.replace('\n', ' ')));
            }
        }
        return hits;
    }

    /** Where {@code form} stands in {@code text}; a number only where it is not part of a longer word. */
    private static int indexOf(String text, String form, boolean wholeWord) {
        for (int at = text.indexOf(form); at >= 0; at = text.indexOf(form, at + 1)) {
            int end = at + form.length();
            if (!wholeWord
                    || ((at == 0 || !Character.isLetterOrDigit(text.charAt(at - 1)))
                            && (end == text.length() || !Character.isLetterOrDigit(text.charAt(end))))) {
                return at;
            }
        }
        return -1;
    }

    /** Of fixed width, so that no value is the start of another. */
    private synchronized String next() {
        return String.format("%05d", ++counter);
    }

    private String add(String kind, String value) {
        values.add(value(kind, value));
        return value;
    }

    private static Value value(String kind, String value) {
        List<String> folded = new ArrayList<>();
        folded.add(value.toLowerCase(Locale.ROOT));
        String encoded = URLEncoder.encode(value, StandardCharsets.UTF_8).toLowerCase(Locale.ROOT);
        if (!folded.contains(encoded)) {
            folded.add(encoded);
        }
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        folded.add(HexFormat.of().formatHex(bytes));
        List<String> exact = new ArrayList<>();
        for (Base64.Encoder encoder : List.of(Base64.getEncoder(), Base64.getUrlEncoder())) {
            for (int shift = 0; shift < 3; shift++) {
                // Base64 writes three bytes as four characters, so a value shifted by 0, 1 or 2 bytes gives three
                // texts; the groups that hold only the value's bytes are the same wherever it stands.
                byte[] shifted = new byte[shift + bytes.length];
                System.arraycopy(bytes, 0, shifted, shift, bytes.length);
                String text = encoder.encodeToString(shifted);
                int firstGroup = shift == 0 ? 0 : 1;
                int lastGroup = shifted.length / 3;
                // At least twelve of the value's bytes: fewer (a KVK number's six digits) turn up by chance in the
                // base64 of a cursor, whose text is full of digits.
                if ((lastGroup - firstGroup) * 3 >= 12
                        && !exact.contains(text.substring(firstGroup * 4, lastGroup * 4))) {
                    exact.add(text.substring(firstGroup * 4, lastGroup * 4));
                }
            }
        }
        return new Value(kind, value, folded, exact);
    }
}
