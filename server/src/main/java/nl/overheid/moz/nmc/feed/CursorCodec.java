package nl.overheid.moz.nmc.feed;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.DateTimeException;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The opaque text of a {@link Cursor}: base64url of {@code c3.epoch.xid.eventId.issuedAt.mac}, where the mac
 * is a truncated HMAC-SHA256 under the NMC's cursor key. A DV cannot forge or alter a cursor: a changed
 * issue time would let an old cursor outlive the max cursor age (and hold back cleanup), a changed position
 * would point the feed somewhere the NMC never handed out. A cursor in the NMC's shape that does not verify
 * (an older format, a rotated key, or an altered one) is recognised as a lost position, so the DV restarts
 * without a cursor instead of being stuck.
 */
public final class CursorCodec {

    private static final String ALGORITHM = "HmacSHA256";
    private static final int MAC_BYTES = 16;
    private static final int MAX_LENGTH = 200;
    private static final BigInteger MAX_XID8 = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);
    private static final Pattern SHAPE = Pattern.compile("^c[0-9]\\.[0-9.]+(\\.[A-Za-z0-9_-]+)?$");
    // the epoch is an int column (10 digits), the xid an xid8 (20), the event id a bigint (19), the issue second 12
    private static final Pattern FORM =
            Pattern.compile("^c3\\.(\\d{1,10})\\.(\\d{1,20})\\.(\\d{1,19})\\.(\\d{1,12})\\.([A-Za-z0-9_-]{22})$");

    private final SecretKeySpec key;

    public CursorCodec(byte[] key) {
        if (key.length < 32) {
            throw new IllegalArgumentException("feed.cursor-key must be at least 32 bytes");
        }
        this.key = new SecretKeySpec(key.clone(), ALGORITHM);
    }

    public String encode(Cursor cursor) {
        String plain = "c3." + cursor.epoch() + "." + cursor.transactionId() + "." + cursor.eventId() + "."
                + cursor.issuedAt().getEpochSecond();
        String sealed = plain + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(mac(plain));
        return Base64.getUrlEncoder().withoutPadding().encodeToString(sealed.getBytes(StandardCharsets.US_ASCII));
    }

    /** Decodes an opaque cursor; empty when it is not one this NMC handed out (garbage, altered, other key). */
    public Optional<Cursor> decode(String opaque) {
        if (opaque == null || opaque.isEmpty() || opaque.length() > MAX_LENGTH) {
            return Optional.empty();
        }
        String sealed;
        try {
            sealed = new String(Base64.getUrlDecoder().decode(opaque), StandardCharsets.US_ASCII);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        Matcher matcher = FORM.matcher(sealed);
        if (!matcher.matches()) {
            return Optional.empty();
        }
        String plain = sealed.substring(0, sealed.lastIndexOf('.'));
        byte[] mac = Base64.getUrlDecoder().decode(matcher.group(5));
        if (!MessageDigest.isEqual(mac, mac(plain))) {
            return Optional.empty();
        }
        try {
            BigInteger xid = new BigInteger(matcher.group(2));
            if (xid.compareTo(MAX_XID8) > 0) {
                return Optional.empty();
            }
            Cursor cursor = new Cursor(
                    Integer.parseInt(matcher.group(1)),
                    xid.toString(),
                    Long.parseLong(matcher.group(3)),
                    Instant.ofEpochSecond(Long.parseLong(matcher.group(4))));
            // One spelling per cursor: base64 with stray padding bits or leading zeros is not ours.
            return encode(cursor).equals(opaque) ? Optional.of(cursor) : Optional.empty();
        } catch (NumberFormatException | DateTimeException e) {
            return Optional.empty();
        }
    }

    /**
     * Whether a text that does not decode is nevertheless a cursor this NMC once issued, in shape: an older
     * format ({@code c2}), one signed with a key no longer in use, or an altered one. Such a position is
     * gone; anything else is not a cursor at all.
     */
    public boolean recognisable(String opaque) {
        if (opaque == null || opaque.isEmpty() || opaque.length() > MAX_LENGTH) {
            return false;
        }
        try {
            return SHAPE.matcher(new String(Base64.getUrlDecoder().decode(opaque), StandardCharsets.US_ASCII))
                    .matches();
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private byte[] mac(String plain) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return Arrays.copyOf(mac.doFinal(plain.getBytes(StandardCharsets.US_ASCII)), MAC_BYTES);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is unavailable", e);
        }
    }
}
