package nl.overheid.moz.nmc.operator;

import java.util.List;

/** Why an operator action was refused, in domain terms; nothing changed when one is thrown. */
public abstract sealed class BeheerRefused extends RuntimeException {

    private BeheerRefused(String message) {
        super(message, null, false, false);
    }

    /** No such notification, DV or webhook. */
    public static final class NotFound extends BeheerRefused {
        public NotFound(String what) {
            super(what + " not found");
        }
    }

    /** The (current status, naar) pair is not an allowed transition. */
    public static final class TransitionNotAllowed extends BeheerRefused {
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
    public static final class EpochMismatch extends BeheerRefused {
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
    public static final class PepperRefused extends BeheerRefused {
        public PepperRefused(String reason) {
            super(reason);
        }
    }

    /** A register value that the NMC cannot use; each error names the field (a JSON pointer) and a code. */
    public static final class InvalidRegistration extends BeheerRefused {
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
    public record Invalid(String field, String code, String reason) {
    }
}
