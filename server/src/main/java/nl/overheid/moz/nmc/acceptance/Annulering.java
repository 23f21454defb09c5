package nl.overheid.moz.nmc.acceptance;

import java.util.UUID;
import nl.overheid.moz.nmc.api.ProblemException;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.engine.TaskRepository;
import nl.overheid.moz.nmc.lifecycle.NotificatieStatus;
import nl.overheid.moz.nmc.lifecycle.Reden;
import nl.overheid.moz.nmc.lifecycle.Transitions;

/**
 * Cancelling (DELETE): only from aangenomen. It takes the notification's row lock like a send claim does,
 * so a cancel and a claim serialise: whichever commits first wins, the other sees the new status.
 */
public final class Annulering {

    private final Database database;
    private final Transitions transitions;
    private final TaskRepository tasks;

    public Annulering(Database database, Transitions transitions, TaskRepository tasks) {
        this.database = database;
        this.transitions = transitions;
        this.tasks = tasks;
    }

    /** Cancels the caller's notification; 404 when it is not the caller's, 409 when it is past aangenomen. */
    public void cancel(UUID dvId, UUID notificatieId) {
        database.inTransactionDo(connection -> {
            Transitions.Locked n = transitions.lock(connection, notificatieId)
                    .filter(locked -> locked.dvId().equals(dvId))
                    .orElseThrow(ProblemException::notFound);
            if (n.status() != NotificatieStatus.AANGENOMEN) {
                throw ProblemException.conflict("Alleen een notificatie met status aangenomen kan worden geannuleerd; "
                        + "deze heeft status " + n.status() + ".");
            }
            transitions.apply(connection, n, NotificatieStatus.GEANNULEERD, Reden.GEANNULEERD);
            tasks.taskCompleteAllForNotification(connection, n.id());
        });
    }
}
