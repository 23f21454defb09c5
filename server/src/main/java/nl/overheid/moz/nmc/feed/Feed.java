package nl.overheid.moz.nmc.feed;

import io.cloudevents.CloudEvent;
import io.helidon.dbclient.DbTransaction;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.refusal.Refusal;
import nl.overheid.moz.nmc.register.Dienstverlener;

/**
 * Step 5, pull side: the DV reads its events by cursor and acknowledges a cursor. A cursor of another
 * cluster epoch, one older than the DV's max cursor age, one into a partition retention dropped, or one whose
 * event is otherwise not the caller's is refused, each for its own reason ({@link Refusal}), and the DV
 * restarts from the oldest available event (no cursor).
 */
public final class Feed {

    private final Database database;
    private final EventRepository events;
    private final StatusEvents statusEvents;
    private final CursorCodec cursors;
    private final Clock clock;

    public Feed(
            Database database, EventRepository events, StatusEvents statusEvents, CursorCodec cursors, Clock clock) {
        this.database = database;
        this.events = events;
        this.statusEvents = statusEvents;
        this.cursors = cursors;
        this.clock = clock;
    }

    /** A page of events and the opaque cursor to continue from (the given position when the page is empty). */
    public record Page(List<CloudEvent> events, String cursor) {}

    /**
     * The caller's events after the cursor ({@code null}: from the oldest available), at most {@code limit}.
     *
     * @throws Refusal when the cursor cannot be used
     */
    public Page read(Dienstverlener dv, String opaqueCursor, int limit) {
        return database.inTransaction(tx -> {
            int epoch = events.clusterEpoch(tx);
            Instant now = clock.instant();
            Cursor after = opaqueCursor == null ? Cursor.start(epoch, now) : usable(tx, dv, opaqueCursor, epoch);
            List<EventRepository.Event> page = events.readAfter(tx, dv.id(), after, limit);
            Cursor next = page.isEmpty()
                    ? after.reissued(now)
                    : new Cursor(
                            epoch,
                            page.getLast().transactionId(),
                            page.getLast().id(),
                            now);
            return new Page(page.stream().map(statusEvents::cloudEvent).toList(), cursors.encode(next));
        });
    }

    /**
     * Records the DV's acknowledgement. A webhook 2xx never does this: only the DV acknowledges.
     *
     * @throws Refusal when the cursor cannot be used
     */
    public void acknowledge(Dienstverlener dv, String opaqueCursor) {
        database.inTransactionDo(tx -> {
            Cursor cursor = usable(tx, dv, opaqueCursor, events.clusterEpoch(tx));
            events.upsertAcknowledgement(tx, dv.id(), cursor, opaqueCursor, clock.instant());
        });
    }

    private Cursor usable(DbTransaction tx, Dienstverlener dv, String opaque, int epoch) {
        Cursor cursor = cursors.decode(opaque)
                .orElseThrow(() -> cursors.recognisable(opaque)
                        ? new Refusal.CursorNotRecognised()
                        : new Refusal.CursorUnreadable());
        if (cursor.epoch() != epoch) {
            throw new Refusal.CursorOtherEpoch();
        }
        if (cursor.issuedAt().isBefore(clock.instant().minus(dv.maxCursorAge()))) {
            throw new Refusal.CursorTooOld();
        }
        if (!cursor.isStart() && events.timeOf(tx, dv.id(), cursor).isEmpty()) {
            throw events.positionDropped(tx, cursor)
                    ? new Refusal.CursorPartitionDropped()
                    : new Refusal.CursorEventGone();
        }
        return cursor;
    }
}
