package nl.overheid.moz.nmc.refusal;

import java.time.Duration;
import java.util.List;

/**
 * Every refusal the domain can answer a caller with, in domain terms: one sealed hierarchy, so that the API
 * layer's one mapper ({@code api/DomainProblems}) is an exhaustive switch — a new refusal does not compile until
 * it has its problem — and one error handler serves every route. Nothing here knows HTTP, and nothing was changed
 * when one is thrown. The texts are for logs and tests; the caller sees the mapper's Dutch problem, never these.
 */
public abstract sealed class Refusal extends RuntimeException {

    private Refusal(String message) {
        super(message, null, false, false);
    }

    // --- acceptance (design §3 step 1)

    /**
     * The database could not be reached for this item of a bulk call after earlier items of the call were accepted:
     * the call is answered item by item, so no longer as one 503 "nothing changed". This item's chunk was not
     * committed; sent again it is stored, or found as a repeat.
     */
    public static final class StoreUnreachable extends Refusal {
        public StoreUnreachable() {
            super("the database could not be reached for this item");
        }
    }

    /** A forced transition's reden that does not go with its status (the DV would see a pair no path makes). */
    public static final class RedenNotAdmitted extends Refusal {
        private final String to;
        private final List<String> admitted;

        public RedenNotAdmitted(String to, List<String> admitted) {
            super("reden does not go with status " + to);
            this.to = to;
            this.admitted = List.copyOf(admitted);
        }

        public String to() {
            return to;
        }

        public List<String> admitted() {
            return admitted;
        }
    }

    /** The DV is not registered for this berichttype. */
    public static final class BerichttypeNotAllowed extends Refusal {
        public BerichttypeNotAllowed() {
            super("berichttype not allowed for this DV");
        }
    }

    /** The DV's register entry names a berichttype that does not exist (an onboarding mistake). */
    public static final class BerichttypeUnknown extends Refusal {
        public BerichttypeUnknown() {
            super("berichttype does not exist");
        }
    }

    /** geldigTot does not lie in the future: no attempt could ever start. */
    public static final class ValidUntilPassed extends Refusal {
        public ValidUntilPassed() {
            super("geldigTot is not in the future");
        }
    }

    /** geldigTot lies further ahead than acceptance allows: a mistake (or an overflow). */
    public static final class ValidUntilTooFar extends Refusal {
        public ValidUntilTooFar() {
            super("geldigTot is too far ahead");
        }
    }

    /** The DV's quota per minute is used up; it may try again after {@code retryAfter}. */
    public static final class QuotaExhausted extends Refusal {
        private final Duration retryAfter;

        public QuotaExhausted(Duration retryAfter) {
            super("quota exhausted");
            this.retryAfter = retryAfter;
        }

        public Duration retryAfter() {
            return retryAfter;
        }
    }

    /**
     * The personalisation lacks fields the berichttype's NotifyNL template asks for; {@code fields} are the
     * template's placeholder names (never a value).
     */
    /** Personalisation keys NotifyNL reads as one (case, spaces, {@code _} and {@code -} do not count). */
    public static final class PersonalisationAmbiguous extends Refusal {
        private final List<String> fields;

        public PersonalisationAmbiguous(List<String> fields) {
            super("personalisation has " + fields.size() + " field(s) NotifyNL reads as one");
            this.fields = List.copyOf(fields);
        }

        public List<String> fields() {
            return fields;
        }
    }

    public static final class PersonalisationMissing extends Refusal {
        private final List<String> fields;

        public PersonalisationMissing(List<String> fields) {
            super("personalisation lacks " + fields.size() + " field(s) the template asks for");
            this.fields = List.copyOf(fields);
        }

        public List<String> fields() {
            return fields;
        }
    }

    /** The DV may not identify parties by this type (the register says which it may use; BSN needs a legal basis). */
    public static final class IdentificatieTypeNotAllowed extends Refusal {
        public IdentificatieTypeNotAllowed() {
            super("identifier type not allowed for this DV");
        }
    }

    /**
     * The number is not a number of its type: {@code code} is {@code length} (KVK 8 digits, RSIN and BSN 9) or
     * {@code elfproef}. Never carries the number.
     */
    public static final class IdentificatieNummerInvalid extends Refusal {
        private final String code;

        public IdentificatieNummerInvalid(String code) {
            super("identifying number invalid: " + code);
            this.code = code;
        }

        public String code() {
            return code;
        }
    }

    /**
     * Several of acceptance's rules broken by one request, each its own refusal: answered together (the contract: a
     * 400 lists every invalid field at once), so a DV does not learn them one round trip at a time.
     */
    public static final class Several extends Refusal {
        private final List<Refusal> each;

        private Several(List<Refusal> each) {
            super(each.size() + " of acceptance's rules broken");
            this.each = List.copyOf(each);
        }

        public List<Refusal> each() {
            return each;
        }
    }

    /** None, the one, or {@link Several} of {@code refusals}. */
    public static java.util.Optional<Refusal> allOf(List<Refusal> refusals) {
        return switch (refusals.size()) {
            case 0 -> java.util.Optional.empty();
            case 1 -> java.util.Optional.of(refusals.getFirst());
            default -> java.util.Optional.of(new Several(refusals));
        };
    }

    // --- cancel, and the operator's actions

    /** No such notification, DV or webhook for the caller (another DV's notification does not exist for it). */
    public static final class NotFound extends Refusal {
        public NotFound(String what) {
            super(what + " not found");
        }
    }

    /** Only a notification that is still aangenomen can be cancelled; {@code status} is its status's spelling. */
    public static final class NotCancellable extends Refusal {
        private final String status;

        public NotCancellable(String status) {
            super("notification is " + status);
            this.status = status;
        }

        public String status() {
            return status;
        }
    }

    // --- the feed's cursor (design §8): Unreadable is the DV's mistake; the others mean the position is gone

    /** Not a cursor at all. */
    public static final class CursorUnreadable extends Refusal {
        public CursorUnreadable() {
            super("cursor is unreadable");
        }
    }

    /** A cursor in the NMC's shape that does not verify: an older format, a rotated key, or altered. */
    public static final class CursorNotRecognised extends Refusal {
        public CursorNotRecognised() {
            super("cursor no longer recognised");
        }
    }

    /** The cursor belongs to an earlier cluster epoch (before a restore or a promotion). */
    public static final class CursorOtherEpoch extends Refusal {
        public CursorOtherEpoch() {
            super("cursor of another cluster epoch");
        }
    }

    /** The DV has not used the cursor for longer than its max cursor age. */
    public static final class CursorTooOld extends Refusal {
        public CursorTooOld() {
            super("cursor older than the max cursor age");
        }
    }

    /** The cursor points into a part of the event log that retention dropped (design §10). */
    public static final class CursorPartitionDropped extends Refusal {
        public CursorPartitionDropped() {
            super("cursor points into a dropped part of the event log");
        }
    }

    /** The event the cursor points at is not the caller's, or is gone otherwise than by retention. */
    public static final class CursorEventGone extends Refusal {
        public CursorEventGone() {
            super("cursor points at no event of the caller");
        }
    }

    // --- the operator's actions (design §11)

    /** The (current status, naar) pair is not an allowed transition; both as their spellings. */
    public static final class TransitionNotAllowed extends Refusal {
        private final String from;
        private final String to;

        public TransitionNotAllowed(String from, String to) {
            super("transition " + from + " -> " + to + " is not allowed");
            this.from = from;
            this.to = to;
        }

        public String from() {
            return from;
        }

        public String to() {
            return to;
        }
    }

    /** The confirmation named another epoch than the current one. */
    public static final class EpochMismatch extends Refusal {
        private final int current;

        public EpochMismatch(int current) {
            super("the cluster epoch is " + current);
            this.current = current;
        }

        public int current() {
            return current;
        }
    }

    /** The pepper version cannot be marked (no other version could take over). */
    public static final class PepperRefused extends Refusal {
        public PepperRefused(String reason) {
            super(reason);
        }
    }

    /** A register value that the NMC cannot use; each error names the field (a JSON pointer) and a code. */
    public static final class InvalidRegistration extends Refusal {
        private final List<Invalid> errors;

        public InvalidRegistration(List<Invalid> errors) {
            super("invalid registration: " + errors);
            this.errors = List.copyOf(errors);
        }

        public List<Invalid> errors() {
            return errors;
        }
    }

    /** One invalid register field: where, a code, and a Dutch reason that does not repeat the value. */
    public record Invalid(String field, String code, String reason) {}
}
