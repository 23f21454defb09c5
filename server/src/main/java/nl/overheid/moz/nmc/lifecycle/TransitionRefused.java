package nl.overheid.moz.nmc.lifecycle;

/** A transition that the rules of design §7.2 do not allow. Never a silent no-op. */
public final class TransitionRefused extends RuntimeException {

    private final NotificatieStatus from;
    private final NotificatieStatus to;

    public TransitionRefused(NotificatieStatus from, NotificatieStatus to) {
        super("transition " + from + " -> " + to + " is not allowed");
        this.from = from;
        this.to = to;
    }

    public NotificatieStatus from() {
        return from;
    }

    public NotificatieStatus to() {
        return to;
    }
}
