package nl.overheid.moz.nmc.acceptance;

import java.util.UUID;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.lifecycle.NotificatieStatus;
import nl.overheid.moz.nmc.lifecycle.Reden;
import nl.overheid.moz.nmc.lifecycle.Transitions;
import nl.overheid.moz.nmc.planning.NotificatieTasks;
import nl.overheid.moz.nmc.refusal.Refusal;

/**
 * Cancelling (DELETE): only from aangenomen. It takes the notification's row lock like the send task's
 * first transaction does, so a cancel and a claimed send serialise: whichever commits first wins, the
 * other sees the new status.
 */
public final class Cancellation {

    private final Database database;
    private final Transitions transitions;
    private final NotificatieTasks tasks;

    public Cancellation(Database database, Transitions transitions, NotificatieTasks tasks) {
        this.database = database;
        this.transitions = transitions;
        this.tasks = tasks;
    }

    /**
     * Cancels the caller's notification.
     *
     * @throws Refusal.NotFound when it is not the caller's
     * @throws Refusal.NotCancellable when it is past aangenomen
     */
    public void cancel(UUID dvId, UUID notificatieId) {
        database.inTransactionDo(tx -> {
            // Only the caller's own row is locked: another DV's notification is neither locked nor waited for.
            Transitions.Locked n = transitions
                    .lockOfDv(tx, notificatieId, dvId)
                    .orElseThrow(() -> new Refusal.NotFound("notification"));
            if (n.status() != NotificatieStatus.AANGENOMEN) {
                throw new Refusal.NotCancellable(n.status().dbValue());
            }
            tasks.completeAll(tx, transitions.apply(tx, n, NotificatieStatus.GEANNULEERD, Reden.GEANNULEERD));
        });
    }
}
