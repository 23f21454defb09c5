package nl.overheid.moz.nmc.lifecycle;

/** A transition that the rules of design §7.2 do not allow. Never a silent no-op. */
public final class TransitionRefused extends RuntimeException {

    private final NotificatieStatus van;
    private final NotificatieStatus naar;

    public TransitionRefused(NotificatieStatus van, NotificatieStatus naar) {
        super("transition " + van + " -> " + naar + " is not allowed");
        this.van = van;
        this.naar = naar;
    }

    public NotificatieStatus van() {
        return van;
    }

    public NotificatieStatus naar() {
        return naar;
    }
}
