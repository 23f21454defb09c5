package nl.overheid.moz.nmc.feed;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A position in the event log: cluster epoch + transaction id (xid8, as decimal text) + event id. Opaque to
 * the DV (base64url); the epoch makes a cursor from before a restore or promotion recognisable (410).
 */
public record Cursor(int epoch, String transactieId, long eventId) {

    private static final String VERSION = "c1";
    private static final Pattern FORM = Pattern.compile("^c1\\.(\\d{1,9})\\.(\\d{1,20})\\.(\\d{1,19})$");

    /** The position before the oldest event of an epoch. */
    public static Cursor start(int epoch) {
        return new Cursor(epoch, "0", 0);
    }

    public boolean isStart() {
        return "0".equals(transactieId) && eventId == 0;
    }

    public String encode() {
        String plain = VERSION + "." + epoch + "." + transactieId + "." + eventId;
        return Base64.getUrlEncoder().withoutPadding().encodeToString(plain.getBytes(StandardCharsets.US_ASCII));
    }

    /** Decodes an opaque cursor; empty when it is not one of ours. */
    public static Optional<Cursor> decode(String opaque) {
        if (opaque == null || opaque.isEmpty() || opaque.length() > 200) {
            return Optional.empty();
        }
        String plain;
        try {
            plain = new String(Base64.getUrlDecoder().decode(opaque), StandardCharsets.US_ASCII);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        Matcher matcher = FORM.matcher(plain);
        if (!matcher.matches()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Cursor(Integer.parseInt(matcher.group(1)),
                    new java.math.BigInteger(matcher.group(2)).toString(), Long.parseLong(matcher.group(3))));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
