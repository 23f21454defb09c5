package nl.overheid.moz.nmc.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.Period;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.testing.EventLogPartitions;
import nl.overheid.moz.nmc.testing.MutableClock;
import nl.overheid.moz.nmc.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Event-log retention (design §10) on a database of its own, whose partitions the tests cut at will: a
 * partition goes once its youngest event is past the retention and no position needs it, and not before.
 */
class EventRetentionTest {

    private static final TestDatabase DB = TestDatabase.separate();
    private static final Period RETENTION = Period.ofDays(10);
    private static Database database;

    private final MutableClock clock = MutableClock.startingNow();
    private EventRetention retention;
    private UUID dv;

    @BeforeAll
    static void open() {
        database = DB.open();
    }

    @AfterAll
    static void close() {
        database.close();
    }

    @BeforeEach
    void reset() {
        dv = DB.resetWithOneDv(database);
        EventLogPartitions.reset(DB);
        retention = new EventRetention(database, new PartitionRepository(), clock, RETENTION);
    }

    @Test
    void aPartitionGoesOnceItsYoungestEventIsPastTheRetentionAndNotBefore() {
        event(dv, clock.instant().minus(Duration.ofDays(30)));
        long youngest = event(dv, clock.instant()).id();
        String closed = EventLogPartitions.cutAtNow(DB, true);

        clock.advance(Duration.ofDays(10));
        assertThat(retention.dropExpired(clock.instant()))
                .as("the youngest event is exactly the retention old")
                .isEmpty();
        assertThat(eventIds()).contains(youngest);

        clock.advance(Duration.ofSeconds(1));
        assertThat(retention.dropExpired(clock.instant())).containsExactly(closed);
        assertThat(EventLogPartitions.rangePartitions(DB))
                .doesNotContain(closed)
                .isNotEmpty();
        assertThat(eventIds()).isEmpty();
    }

    @Test
    void aPartitionIsKeptWhileAnAcknowledgementPointsIntoIt() {
        Event first = event(dv, clock.instant());
        event(dv, clock.instant());
        String closed = EventLogPartitions.cutAtNow(DB, true);
        acknowledge(dv, first, clock.instant());

        clock.advance(Duration.ofDays(20));
        assertThat(retention.dropExpired(clock.instant())).isEmpty();
        assertThat(EventLogPartitions.rangePartitions(DB)).contains(closed);
    }

    @Test
    void anAcknowledgementOlderThanItsDvsMaxCursorAgeNoLongerHoldsThePartition() {
        Event first = event(dv, clock.instant());
        String closed = EventLogPartitions.cutAtNow(DB, true);
        acknowledge(dv, first, clock.instant());

        clock.advance(Duration.ofDays(30));
        assertThat(retention.dropExpired(clock.instant()))
                .as("30 days is the DV's max cursor age, not beyond")
                .isEmpty();

        clock.advance(Duration.ofSeconds(1));
        assertThat(retention.dropExpired(clock.instant())).containsExactly(closed);
    }

    @Test
    void anAcknowledgementBeforeThePartitionHoldsItOnlyWhileItsDvHasEventsThere() {
        UUID other = secondDv();
        Event start = event(other, clock.instant());
        String first = EventLogPartitions.cutAtNow(DB, true);
        event(dv, clock.instant());
        String second = EventLogPartitions.cutAtNow(DB, true);
        acknowledge(other, start, clock.instant());
        acknowledgeStart(dv, clock.instant());

        clock.advance(Duration.ofDays(20));
        assertThat(retention.dropExpired(clock.instant()))
                .as("DV B's position lies in the first; DV A's start lies before both, and A has events in the second")
                .isEmpty();

        acknowledge(dv, event(dv, clock.instant()), clock.instant());
        assertThat(retention.dropExpired(clock.instant()))
                .as("DV A read past the second partition; DV B still needs its own event in the first")
                .containsExactly(second);
        assertThat(EventLogPartitions.rangePartitions(DB)).contains(first);
    }

    @Test
    void aPartitionIsKeptWhileAWebhookPositionPointsIntoItOrBeforeItsEvents() {
        Event first = event(dv, clock.instant());
        String closed = EventLogPartitions.cutAtNow(DB, true);
        withWebhook(dv);
        webhookPosition(dv, null, clock.instant());

        clock.advance(Duration.ofDays(20));
        assertThat(retention.dropExpired(clock.instant()))
                .as("a webhook that delivered nothing yet")
                .isEmpty();

        webhookPosition(dv, first, clock.instant());
        assertThat(retention.dropExpired(clock.instant()))
                .as("a webhook position inside the partition")
                .isEmpty();

        webhookPosition(dv, event(dv, clock.instant()), clock.instant());
        assertThat(retention.dropExpired(clock.instant())).containsExactly(closed);
    }

    /**
     * Issue 18 §8: a webhook position counts like a cursor, while it moved within its DV's max cursor age (30 days):
     * a webhook that fails for good no longer keeps the DV's events past the retention.
     */
    @Test
    void aWebhookPositionOlderThanItsDvsMaxCursorAgeNoLongerHoldsThePartition() {
        Event first = event(dv, clock.instant());
        String closed = EventLogPartitions.cutAtNow(DB, true);
        withWebhook(dv);
        webhookPosition(dv, first, clock.instant());

        clock.advance(Duration.ofDays(30));
        assertThat(retention.dropExpired(clock.instant()))
                .as("30 days is the DV's max cursor age, not beyond")
                .isEmpty();

        clock.advance(Duration.ofSeconds(1));
        assertThat(retention.dropExpired(clock.instant())).containsExactly(closed);
    }

    /** Issue 18 §8: the position of a DV without a webhook (any more) holds nothing. */
    @Test
    void aPositionOfADvWithoutAWebhookHoldsNothing() {
        Event first = event(dv, clock.instant());
        String closed = EventLogPartitions.cutAtNow(DB, true);
        webhookPosition(dv, first, clock.instant());

        clock.advance(Duration.ofDays(20));
        assertThat(retention.dropExpired(clock.instant())).containsExactly(closed);
    }

    @Test
    void theCurrentPartitionTheHighestAndTheDefaultAreNeverDropped() {
        Instant old = clock.instant().minus(Duration.ofDays(100));
        new EventPartitions(database, new PartitionRepository()).ensureNext(0);
        event(dv, old);
        assertThat(retention.dropExpired(clock.instant()))
                .as("the partition that holds the current transaction id still takes events")
                .isEmpty();

        EventLogPartitions.cutAtNow(DB, false);
        List<String> partitions = EventLogPartitions.rangePartitions(DB);
        event(dv, old);
        assertThat(count("SELECT count(*) FROM event_default")).isEqualTo(1);

        assertThat(retention.dropExpired(clock.instant()))
                .as("the highest partition and the default")
                .isEmpty();
        assertThat(EventLogPartitions.rangePartitions(DB)).isEqualTo(partitions);
        assertThat(count("SELECT count(*) FROM event")).isEqualTo(2);
    }

    @Test
    void aDropThatDoesNotGetItsLockGivesUpAndGoesNextRound() throws SQLException {
        event(dv, clock.instant());
        String closed = EventLogPartitions.cutAtNow(DB, true);
        clock.advance(Duration.ofDays(11));

        try (Connection reader = DB.connect();
                PreparedStatement s = reader.prepareStatement("SELECT count(*) FROM event")) {
            s.executeQuery().close(); // a feed read in progress holds its lock until it ends
            long started = System.nanoTime();
            assertThat(retention.dropExpired(clock.instant())).isEmpty();
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
            reader.rollback();
        }
        assertThat(retention.runOnce()).isEqualTo(1);
        assertThat(EventLogPartitions.rangePartitions(DB)).doesNotContain(closed);
    }

    // --- helpers ----------------------------------------------------------------------------------------------

    /** An event as the log holds it: its id and transaction id. */
    private record Event(long id, String transactionId) {}

    private Event event(UUID dvId, Instant time) {
        try (Connection c = DB.connect();
                PreparedStatement s = c.prepareStatement("""
                INSERT INTO event (tijdstip, dv_id, notificatie, volgnummer, naar)
                VALUES (?, ?, gen_random_uuid(), 1, 'aangenomen') RETURNING id, CAST(transactie_id AS text)""")) {
            s.setTimestamp(1, Timestamp.from(time));
            s.setObject(2, dvId);
            try (ResultSet row = s.executeQuery()) {
                row.next();
                Event event = new Event(row.getLong(1), row.getString(2));
                c.commit();
                return event;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private void acknowledge(UUID dvId, Event event, Instant time) {
        update("""
                INSERT INTO bevestiging (dv_id, cursor, cluster_epoch, transactie_id, event_id, tijdstip)
                VALUES (?, 'opaque', 1, CAST(? AS xid8), ?, ?)
                ON CONFLICT (dv_id) DO UPDATE SET transactie_id = excluded.transactie_id,
                       event_id = excluded.event_id, tijdstip = excluded.tijdstip""", dvId, event.transactionId(), event.id(), Timestamp.from(time));
    }

    /** The acknowledgement of a DV that has read nothing yet: the start position. */
    private void acknowledgeStart(UUID dvId, Instant time) {
        acknowledge(dvId, new Event(0, "0"), time);
    }

    /** The DV's webhook position at {@code event} (null: it delivered nothing yet), made and last moved at {@code at}. */
    private void webhookPosition(UUID dvId, Event event, Instant at) {
        update(
                """
                INSERT INTO webhookpositie (dv_id, transactie_id, event_id, aangemaakt_op, geleverd_op)
                VALUES (?, CAST(? AS xid8), ?, ?, ?)
                ON CONFLICT (dv_id) DO UPDATE SET transactie_id = excluded.transactie_id, event_id = excluded.event_id,
                       geleverd_op = excluded.geleverd_op""",
                dvId,
                event == null ? null : event.transactionId(),
                event == null ? null : event.id(),
                Timestamp.from(at),
                event == null ? null : Timestamp.from(at));
    }

    /** The DV has a webhook (its position counts only then). */
    private void withWebhook(UUID dvId) {
        update("UPDATE dienstverlener SET webhook_url = 'https://dv.example/hook' WHERE id = ?", dvId);
    }

    private UUID secondDv() {
        UUID id = UUID.randomUUID();
        update("INSERT INTO dienstverlener (id, oin, naam) VALUES (?, '00000001222222222000', 'DV B')", id);
        return id;
    }

    private static void update(String sql, Object... parameters) {
        try (Connection c = DB.connect();
                PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                s.setObject(i + 1, parameters[i]);
            }
            s.executeUpdate();
            c.commit();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<Long> eventIds() {
        List<Long> ids = new ArrayList<>();
        try (Connection c = DB.connect();
                PreparedStatement s = c.prepareStatement("SELECT id FROM event ORDER BY id");
                ResultSet rows = s.executeQuery()) {
            while (rows.next()) {
                ids.add(rows.getLong(1));
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return ids;
    }

    private static long count(String sql) {
        try (Connection c = DB.connect();
                PreparedStatement s = c.prepareStatement(sql);
                ResultSet rows = s.executeQuery()) {
            rows.next();
            return rows.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
