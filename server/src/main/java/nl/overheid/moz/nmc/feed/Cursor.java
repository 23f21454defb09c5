package nl.overheid.moz.nmc.feed;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A position in the event log: cluster epoch + transaction id (xid8, as decimal text) + event id, plus the
 * moment the NMC handed it out. Opaque to the DV (base64url). The epoch makes a cursor from before a restore
 * or promotion recognisable (410); the issue time makes the max cursor age about how long ago the DV last
 * read, not about how long ago its last event happened (a quiet DV that keeps polling stays current).
 */
public record Cursor(int epoch, String transactieId, long eventId, Instant issuedAt) {

    private static final Pattern FORM = Pattern.compile("^c2\\.(\\d{1,9})\\.(\\d{1,20})\\.(\\d{1,19})\\.(\\d{1,12})$");

    /** The position before the oldest event of an epoch. */
    public static Cursor start(int epoch, Instant issuedAt) {
        return new Cursor(epoch, "0", 0, issuedAt);
    }

    public boolean isStart() {
        return "0".equals(transactieId) && eventId == 0;
    }

    /** The same position, handed out again now. */
    public Cursor reissued(Instant now) {
        return new Cursor(epoch, transactieId, eventId, now);
    }

    public String encode() {
        String plain = "c2." + epoch + "." + transactieId + "." + eventId + "." + issuedAt.getEpochSecond();
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
            return Optional.of(new Cursor(Integer.parseInt(matcher.group(1)), new BigInteger(matcher.group(2)).toString(),
                    Long.parseLong(matcher.group(3)), Instant.ofEpochSecond(Long.parseLong(matcher.group(4)))));
        } catch (NumberFormatException | java.time.DateTimeException e) {
            return Optional.empty();
        }
    }
}
