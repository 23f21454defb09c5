package nl.overheid.moz.nmc.acceptance;

import java.time.Duration;

/**
 * Why an acceptance was refused, in domain terms. The API layer turns each kind into its RFC 9457 problem;
 * nothing here knows HTTP. Nothing was stored when one is thrown.
 */
public abstract sealed class AcceptanceRefused extends RuntimeException {

    private AcceptanceRefused(String message) {
        super(message, null, false, false);
    }

    /** The DV is not registered for this berichttype. */
    public static final class BerichttypeNotAllowed extends AcceptanceRefused {
        public BerichttypeNotAllowed() {
            super("berichttype not allowed for this DV");
        }
    }

    /** The DV's register entry names a berichttype that does not exist (an onboarding mistake). */
    public static final class BerichttypeUnknown extends AcceptanceRefused {
        public BerichttypeUnknown() {
            super("berichttype does not exist");
        }
    }

    /** geldigTot does not lie in the future: no attempt could ever start. */
    public static final class GeldigTotPassed extends AcceptanceRefused {
        public GeldigTotPassed() {
            super("geldigTot is not in the future");
        }
    }

    /** geldigTot lies further ahead than {@link Acceptance#MAX_VALIDITY}: a mistake (or an overflow). */
    public static final class GeldigTotTooFar extends AcceptanceRefused {
        public GeldigTotTooFar() {
            super("geldigTot is too far ahead");
        }
    }

    /** The DV's quota per minute is used up; it may try again after {@code retryAfter}. */
    public static final class QuotaExhausted extends AcceptanceRefused {
        private final Duration retryAfter;

        public QuotaExhausted(Duration retryAfter) {
            super("quota exhausted");
            this.retryAfter = retryAfter;
        }

        public Duration retryAfter() {
            return retryAfter;
        }
    }
}
