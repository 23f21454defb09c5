package nl.overheid.moz.nmc.feed;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * Fuzz target: the feed's cursor codec. An input is read twice: its text as a cursor a DV sends (never an exception,
 * never a position unless it is one this codec wrote, spelled exactly so), and its bytes as a cursor the NMC could
 * hand out (every epoch, xid8, event id and issue second its columns allow survives its round trip, within the
 * contract's 200 base64url characters, and no single changed character is a position). The seed corpus is
 * {@code CursorCodecFuzzTestInputs/}.
 */
class CursorCodecFuzzTest {

    private static final byte[] KEY = "cursor-codec-fuzz-key-0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final CursorCodec CODEC = new CursorCodec(KEY);
    private static final BigInteger MAX_XID8 = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);
    /** The latest issue time a 12-digit epoch second can hold. */
    private static final long MAX_ISSUED = 999_999_999_999L;

    @FuzzTest(maxDuration = "10s")
    void cursor(FuzzedDataProvider data) {
        Cursor written = new Cursor(
                data.consumeInt(0, Integer.MAX_VALUE),
                new BigInteger(1, data.consumeBytes(8)).min(MAX_XID8).toString(),
                data.consumeLong(0, Long.MAX_VALUE),
                Instant.ofEpochSecond(data.consumeLong(0, MAX_ISSUED)));
        String encoded = CODEC.encode(written);
        assertThat(encoded).as("%s", written).matches("[A-Za-z0-9_-]{1,200}");
        assertThat(CODEC.decode(encoded)).as("%s", written).contains(written);
        int at = data.consumeInt(0, encoded.length() - 1);
        char other = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".charAt(data.consumeInt(0, 63));
        if (other != encoded.charAt(at)) {
            String altered = encoded.substring(0, at) + other + encoded.substring(at + 1);
            assertThat(CODEC.decode(altered))
                    .as("%s altered at %d", encoded, at)
                    .isEmpty();
        }

        String sent = data.consumeRemainingAsString();
        var decoded = CODEC.decode(sent);
        CODEC.recognisable(sent);
        decoded.ifPresent(cursor -> {
            assertThat(CODEC.encode(cursor)).as("one spelling per cursor").isEqualTo(sent);
            assertThat(new BigInteger(cursor.transactionId())).isBetween(BigInteger.ZERO, MAX_XID8);
            assertThat(cursor.epoch()).isNotNegative();
            assertThat(cursor.eventId()).isNotNegative();
        });
    }
}
