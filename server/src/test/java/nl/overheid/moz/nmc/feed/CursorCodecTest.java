package nl.overheid.moz.nmc.feed;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The opaque cursor: it survives a round trip, and garbage, overflow and tampering are never a position. */
class CursorCodecTest {

    private static final byte[] KEY = "cursor-codec-test-key-0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private final CursorCodec codec = new CursorCodec(KEY);
    private final Cursor cursor =
            new Cursor(3, "18446744073709551615", 9_223_372_036_854_775_807L, Instant.parse("2026-12-01T10:15:30Z"));

    @Test
    void aCursorSurvivesItsRoundTripIncludingTheLargestXid8AndEventId() {
        assertThat(codec.decode(codec.encode(cursor))).contains(cursor);
        // the epoch is an int column: ten digits (found by CursorCodecFuzzTest, the codec read only nine)
        Cursor lastEpoch = new Cursor(Integer.MAX_VALUE, "1", 1, Instant.parse("2026-12-01T10:15:30Z"));
        assertThat(codec.decode(codec.encode(lastEpoch))).contains(lastEpoch);
        Cursor start = Cursor.start(1, Instant.parse("2026-12-01T00:00:00Z"));
        assertThat(codec.decode(codec.encode(start))).contains(start);
    }

    @Test
    void garbageIsNoCursor() {
        for (String garbage : new String[] {
            "",
            "rommel",
            "====",
            "c3.1.2.3.4",
            "%%%",
            "a".repeat(201),
            Base64.getUrlEncoder().encodeToString("c3.1.2.3.4.AAAAAAAAAAAAAAAAAAAAAA".getBytes())
        }) {
            assertThat(codec.decode(garbage)).as(garbage).isEmpty();
        }
        assertThat(codec.decode(null)).isEmpty();
        Random random = new Random(42);
        for (int i = 0; i < 1000; i++) {
            byte[] bytes = new byte[random.nextInt(120)];
            random.nextBytes(bytes);
            assertThat(codec.decode(Base64.getUrlEncoder().withoutPadding().encodeToString(bytes)))
                    .isEmpty();
        }
    }

    @Test
    void numbersBeyondTheirTypesAreNoCursorEvenWhenSigned() {
        assertThat(codec.decode(sealed("c3.1.18446744073709551616.1.1")))
                .as("xid8 overflow")
                .isEmpty();
        assertThat(codec.decode(sealed("c3.1.5.9223372036854775808.1")))
                .as("event id overflow")
                .isEmpty();
        assertThat(codec.decode(sealed("c3.9999999999.5.1.1")))
                .as("epoch overflow")
                .isEmpty();
        assertThat(codec.decode(sealed("c3.1.5.1.1")))
                .as("the same shape in range is fine")
                .isPresent();
    }

    @Test
    void everyAlteredCharacterIsDetected() {
        String opaque = codec.encode(cursor);
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        for (int i = 0; i < opaque.length(); i++) {
            char replacement = alphabet.charAt((alphabet.indexOf(opaque.charAt(i)) + 1) % alphabet.length());
            String altered = opaque.substring(0, i) + replacement + opaque.substring(i + 1);
            assertThat(codec.decode(altered))
                    .as("altered at %d", i)
                    .isNotEqualTo(codec.decode(opaque))
                    .isEmpty();
        }
    }

    @Test
    void aLaterIssueTimeCannotBeWrittenIn() {
        String plain = new String(Base64.getUrlDecoder().decode(codec.encode(cursor)), StandardCharsets.US_ASCII);
        String younger = plain.replace(
                "." + cursor.issuedAt().getEpochSecond() + ".",
                "." + (cursor.issuedAt().getEpochSecond() + 86_400 * 30) + ".");
        assertThat(codec.decode(Base64.getUrlEncoder().withoutPadding().encodeToString(younger.getBytes())))
                .isEmpty();
    }

    @Test
    void aCursorOfAnotherKeyIsNoCursorButIsRecognisedAsOneOfOurs() {
        CursorCodec other = new CursorCodec("another-cursor-key-0123456789abcdefgh".getBytes());
        assertThat(other.decode(codec.encode(cursor))).isEmpty();
        assertThat(other.recognisable(codec.encode(cursor)))
                .as("a lost position: the DV restarts")
                .isTrue();
        assertThat(codec.recognisable(
                        Base64.getUrlEncoder().withoutPadding().encodeToString("c2.1.500.7.1796000000".getBytes())))
                .as("the older format")
                .isTrue();
        assertThat(codec.recognisable("rommel")).isFalse();
        assertThat(codec.recognisable(Base64.getUrlEncoder().encodeToString("{\"a\":1}".getBytes())))
                .isFalse();
    }

    /** A text signed with the codec's key (as the codec would), to reach the number checks behind the MAC. */
    private static String sealed(String plain) {
        try {
            javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
            mac.init(new javax.crypto.spec.SecretKeySpec(KEY, "HmacSHA256"));
            byte[] tag = java.util.Arrays.copyOf(mac.doFinal(plain.getBytes(StandardCharsets.US_ASCII)), 16);
            String text = plain + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(tag);
            return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.US_ASCII));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
