package nl.overheid.moz.nmc.webhook;

import io.helidon.dbclient.DbTransaction;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.engine.Duty;
import nl.overheid.moz.nmc.engine.TaskKind;
import nl.overheid.moz.nmc.engine.TaskRepository;
import nl.overheid.moz.nmc.engine.WorkSignals;
import nl.overheid.moz.nmc.feed.Cursor;
import nl.overheid.moz.nmc.feed.CursorCodec;
import nl.overheid.moz.nmc.feed.EventRepository;

/**
 * A DV's view of its webhook (its state, and resuming it at once), and the duty that gives every DV with a
 * webhook its delivery position and its one {@code terugkoppelen} task (after onboarding, or a lost task).
 */
public final class Webhooks implements Duty {

    /** The state the DV sees; {@code cursor} is the delivery position (null before the first delivery). */
    public record State(boolean paused, int mislukkingen, Instant gepauzeerdTot, String cursor) {}

    private final Database database;
    private final WebhookPositionRepository positions;
    private final TaskRepository tasks;
    private final EventRepository events;
    private final CursorCodec cursors;
    private final WorkSignals signals;
    private final Clock clock;

    public Webhooks(
            Database database,
            WebhookPositionRepository positions,
            TaskRepository tasks,
            EventRepository events,
            CursorCodec cursors,
            WorkSignals signals,
            Clock clock) {
        this.database = database;
        this.positions = positions;
        this.tasks = tasks;
        this.events = events;
        this.cursors = cursors;
        this.signals = signals;
        this.clock = clock;
    }

    /** The DV's webhook; empty when it has none. */
    public Optional<State> state(UUID dvId) {
        return database.inTransaction(tx -> positions
                .get(tx, dvId)
                .filter(position -> position.webhookUrl() != null)
                .map(position -> state(position, events.clusterEpoch(tx))));
    }

    /**
     * Ends a pause now: the next delivery is tried at once, from the webhook's own position. Empty when the DV
     * has no webhook. The position's lock comes first, then the task's row, as in the task itself.
     */
    public Optional<State> resume(UUID dvId) {
        return resume(dvId, (tx, state) -> {});
    }

    /**
     * {@link #resume(UUID)}, with {@code alsoDone} in the same transaction once it is resumed (an operator's audit
     * row: a resume and its record commit together, or neither).
     */
    public Optional<State> resume(UUID dvId, java.util.function.BiConsumer<DbTransaction, State> alsoDone) {
        Optional<State> resumed = database.inTransaction(tx -> {
            Optional<WebhookPositionRepository.Position> locked =
                    positions.lock(tx, dvId).filter(position -> position.webhookUrl() != null);
            if (locked.isEmpty()) {
                return Optional.<State>empty();
            }
            positions.resume(tx, dvId);
            tasks.dueForDv(tx, dvId, TaskKind.TERUGKOPPELEN, clock.instant());
            Optional<State> state = positions.get(tx, dvId).map(position -> state(position, events.clusterEpoch(tx)));
            state.ifPresent(s -> alsoDone.accept(tx, s));
            return state;
        });
        resumed.ifPresent(state -> signals.nudge(TaskKind.TERUGKOPPELEN));
        return resumed;
    }

    @Override
    public String name() {
        return "webhook planning";
    }

    /**
     * Gives every DV with a webhook its position and delivery task, and forgets those of a DV without one, in
     * {@code tx}: a registration calls it so that its webhook is there with its commit (found by reading: until this
     * duty's next round, up to {@code engine.control-interval}, its resume and state were a 404). Returns the tasks
     * planned.
     */
    public long plan(DbTransaction tx) {
        return positions.ensure(tx, clock.instant());
    }

    @Override
    public int runOnce() {
        long planned = database.inTransaction(this::plan);
        if (planned > 0) {
            signals.nudge(TaskKind.TERUGKOPPELEN);
        }
        return Math.toIntExact(planned);
    }

    private State state(WebhookPositionRepository.Position position, int epoch) {
        Instant now = clock.instant();
        String cursor = position.transactionId() == null || (position.epoch() != null && position.epoch() != epoch)
                ? null
                : cursors.encode(new Cursor(epoch, position.transactionId(), position.eventId(), now));
        boolean paused = position.pausedAt(now);
        return new State(paused, position.mislukkingen(), paused ? position.gepauzeerdTot() : null, cursor);
    }
}
