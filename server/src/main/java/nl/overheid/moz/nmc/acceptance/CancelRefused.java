package nl.overheid.moz.nmc.acceptance;

import nl.overheid.moz.nmc.lifecycle.NotificatieStatus;

/** Why a cancel was refused, in domain terms; nothing changed when one is thrown. */
public abstract sealed class CancelRefused extends RuntimeException {

    private CancelRefused(String message) {
        super(message, null, false, false);
    }

    /** No such notification for this DV (another DV's notification does not exist for the caller). */
    public static final class NotFound extends CancelRefused {
        public NotFound() {
            super("notification not found");
        }
    }

    /** Only a notification that is still aangenomen can be cancelled. */
    public static final class NotCancellable extends CancelRefused {
        private final NotificatieStatus status;

        public NotCancellable(NotificatieStatus status) {
            super("notification is " + status);
            this.status = status;
        }

        public NotificatieStatus status() {
            return status;
        }
    }
}
