package nl.overheid.moz.nmc.maintenance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.testing.EventLogPartitions;
import nl.overheid.moz.nmc.testing.TestDatabase;
import org.junit.jupiter.api.Test;

/**
 * Rows that fell into {@code event_default} because the partition upkeep lagged move into a range partition of
 * their own, all at once and without loss, while writers keep adding events; after that the upkeep goes on.
 */
class EventDefaultAdoptionTest {

    private static final TestDatabase DB = TestDatabase.separate();

    @Test
    void rowsOfTheDefaultMoveIntoARangePartitionWithoutLossWhileAWriterGoesOn() throws Exception {
        try (Database database = DB.open()) {
            UUID dv = DB.resetWithOneDv(database);
            EventLogPartitions.reset(DB);
            String highest = EventLogPartitions.cutAtNow(DB, false);
            EventPartitions partitions = new EventPartitions(database, new PartitionRepository());
            List<Long> written = Collections.synchronizedList(new ArrayList<>());
            for (int i = 0; i < 50; i++) {
                written.add(insert(dv));
            }
            assertThat(count("SELECT count(*) FROM event_default")).isEqualTo(50);
            assertThatThrownBy(() -> partitions.ensureNext(0))
                    .as("no partition can be created over the default's rows")
                    .isInstanceOf(RuntimeException.class);

            AtomicBoolean stop = new AtomicBoolean();
            List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
            Thread writer = Thread.ofPlatform().start(() -> {
                while (!stop.get()) {
                    try {
                        written.add(insert(dv));
                    } catch (RuntimeException e) {
                        errors.add(e);
                    }
                }
            });
            await(() -> written.size() >= 80);
            List<EventPartitions.Adopted> adopted = new ArrayList<>();
            for (int round = 0; round < 50 && adopted.isEmpty(); round++) {
                adopted.addAll(partitions.adoptDefault());
            }
            int atAdoption = written.size();
            await(() -> written.size() >= atAdoption + 30);
            stop.set(true);
            writer.join();

            assertThat(errors).as("no writer saw an error").isEmpty();
            assertThat(adopted).hasSize(1);
            assertThat(adopted.getFirst().rows()).isGreaterThanOrEqualTo(80);
            assertThat(count("SELECT count(*) FROM event_default")).isZero();
            assertThat(ids("SELECT id FROM event"))
                    .as("every event once, none lost")
                    .hasSize(written.size())
                    .containsExactlyInAnyOrderElementsOf(written);
            assertThat(ids("SELECT DISTINCT CAST(tableoid AS regclass)::text FROM event"))
                    .containsExactly(adopted.getFirst().partition());
            assertThat(EventLogPartitions.rangePartitions(DB))
                    .containsExactly(highest, adopted.getFirst().partition());
            // On the grid of 10,000,000 ids whatever the width of the partition below (found by reading: each new
            // one took the highest's width, and V1's first reaches from 0, on a cluster with a long history billions
            // of ids wide, so no partition filled and none was ever dropped)
            assertThat(width(adopted.getFirst().partition())).isEqualTo(10_000_000L);
            String next = partitions.ensureNext(0).orElseThrow(() -> new AssertionError("the upkeep goes on"));
            assertThat(width(next)).isEqualTo(10_000_000L);
        }
    }

    /** A range partition's width in transaction ids. */
    private static long width(String partition) {
        return count("SELECT CAST(CAST(tot AS text) AS bigint) - CAST(CAST(van AS text) AS bigint)"
                + " FROM event_partition_bounds() WHERE naam = '" + partition + "'");
    }

    private static long insert(UUID dv) {
        try (Connection c = DB.connect();
                PreparedStatement s = c.prepareStatement("""
                INSERT INTO event (dv_id, notificatie, volgnummer, naar)
                VALUES (?, gen_random_uuid(), 1, 'aangenomen') RETURNING id""")) {
            s.setObject(1, dv);
            try (ResultSet row = s.executeQuery()) {
                row.next();
                long id = row.getLong(1);
                c.commit();
                return id;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void await(BooleanSupplier condition) throws InterruptedException {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
        while (!condition.getAsBoolean()) {
            assertThat(Instant.now()).as("waited 30 s for the writer").isBefore(deadline);
            Thread.sleep(5);
        }
    }

    private static long count(String sql) {
        return ((Number) ids(sql).getFirst()).longValue();
    }

    private static List<Object> ids(String sql) {
        List<Object> values = new ArrayList<>();
        try (Connection c = DB.connect();
                PreparedStatement s = c.prepareStatement(sql);
                ResultSet rows = s.executeQuery()) {
            while (rows.next()) {
                values.add(rows.getObject(1));
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return values;
    }
}
