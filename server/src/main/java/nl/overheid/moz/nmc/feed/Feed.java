package nl.overheid.moz.nmc.feed;

import java.sql.Connection;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import nl.overheid.moz.nmc.api.ProblemException;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.register.Dienstverlener;

/**
 * Step 5, pull side: the DV reads its events by cursor and acknowledges a cursor. A cursor of another
 * cluster epoch, one whose event is gone (dropped partition) or one older than the DV's max cursor age gets
 * 410, and the DV restarts from the oldest available event (no cursor).
 */
public final class Feed {

    private final Database database;
    private final EventRepository events;
    private final Clock clock;

    public Feed(Database database, EventRepository events, Clock clock) {
        this.database = database;
        this.events = events;
        this.clock = clock;
    }

    /** A page of events and the cursor to continue from (the given one when the page is empty). */
    public record Page(List<EventRepository.Event> events, Cursor next) {
    }

    public Page read(Dienstverlener dv, String opaqueCursor, int limit) {
        return database.inTransaction(connection -> {
            int epoch = events.clusterEpoch(connection);
            Instant now = clock.instant();
            Cursor after = opaqueCursor == null ? Cursor.start(epoch, now) : usable(connection, dv, opaqueCursor, epoch);
            List<EventRepository.Event> page = events.eventReadAfter(connection, dv.id(), after, limit);
            Cursor next = page.isEmpty() ? after.reissued(now)
                    : new Cursor(epoch, page.getLast().transactieId(), page.getLast().id(), now);
            return new Page(page, next);
        });
    }

    public Cursor acknowledge(Dienstverlener dv, String opaqueCursor) {
        return database.inTransaction(connection -> {
            Cursor cursor = usable(connection, dv, opaqueCursor, events.clusterEpoch(connection));
            events.acknowledgementUpsert(connection, dv.id(), cursor, clock.instant());
            return cursor;
        });
    }

    private Cursor usable(Connection connection, Dienstverlener dv, String opaque, int epoch) {
        Cursor cursor = Cursor.decode(opaque).orElseThrow(() -> ProblemException.invalid("cursor", "format",
                "De cursor is geen cursor van deze feed."));
        if (cursor.epoch() != epoch) {
            throw ProblemException.cursorExpired("De cursor hoort bij een eerdere stand van het eventlog; "
                    + "begin opnieuw zonder cursor.");
        }
        if (cursor.issuedAt().isBefore(clock.instant().minus(dv.maxCursorleeftijd()))) {
            throw ProblemException.cursorExpired("De cursor is ouder dan de maximale cursorleeftijd; "
                    + "begin opnieuw zonder cursor.");
        }
        if (!cursor.isStart() && events.eventTime(connection, dv.id(), cursor).isEmpty()) {
            throw ProblemException.cursorExpired("De cursor wijst naar een event dat niet meer bestaat; "
                    + "begin opnieuw zonder cursor.");
        }
        return cursor;
    }
}
