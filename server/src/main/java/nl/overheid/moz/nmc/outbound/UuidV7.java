package nl.overheid.moz.nmc.outbound;

import java.security.SecureRandom;
import java.time.Clock;
import java.util.UUID;

/**
 * UUID version 7 (RFC 9562 §5.7): 48 bits of Unix milliseconds, then random bits, so ids sort by time. FSC asks for
 * one as the {@code Fsc-Transaction-Id} of every call. The JDK makes only version 3 and 4; this is the RFC's layout
 * in a few lines rather than a dependency.
 */
public final class UuidV7 {

    private static final SecureRandom RANDOM = new SecureRandom();

    private UuidV7() {}

    public static UUID next(Clock clock) {
        long millis = clock.millis();
        long randA = RANDOM.nextInt(1 << 12);
        long msb = (millis << 16) | 0x7000L | randA;
        long lsb = (RANDOM.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
        return new UUID(msb, lsb);
    }

    /** Whether {@code value} is a UUID of version 7 and the RFC's variant. */
    public static boolean is(String value) {
        try {
            UUID uuid = UUID.fromString(value);
            return uuid.version() == 7 && uuid.variant() == 2 && uuid.toString().equals(value.toLowerCase());
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
