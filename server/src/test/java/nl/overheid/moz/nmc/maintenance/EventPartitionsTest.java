package nl.overheid.moz.nmc.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.testing.TestDatabase;
import org.junit.jupiter.api.Test;

/** The event log gets its next partition ahead of the transaction ids, once, and only when due. */
class EventPartitionsTest {

    private static final TestDatabase DB = TestDatabase.get();

    @Test
    void theNextPartitionIsCreatedWhenTheCurrentOneIsFullEnoughAndOnlyOnce() {
        try (Database database = DB.open()) {
            EventPartitions partitions = new EventPartitions(database, new PartitionRepository());
            List<String> before = rangePartitions(database);

            assertThat(partitions.ensureNext())
                    .as("a fresh schema is far below 80%%")
                    .isEmpty();
            String created = partitions.ensureNext(0).orElseThrow();
            assertThat(partitions.ensureNext(0))
                    .as("the new partition lies ahead of the current xid")
                    .isEmpty();

            List<String> after = rangePartitions(database);
            assertThat(after).hasSize(before.size() + 1).contains(created);
            String bounds = database.inTransaction(tx -> tx.createGet("""
                    SELECT pg_get_expr(c.relpartbound, c.oid) AS bounds FROM pg_class c WHERE c.relname = :name
                    """)
                    .addParam("name", created)
                    .execute()
                    .orElseThrow()
                    .column("bounds")
                    .get(String.class));
            assertThat(bounds).startsWith("FOR VALUES FROM");
        }
    }

    private static List<String> rangePartitions(Database database) {
        return database.inTransaction(tx -> tx.createQuery("""
                SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                 WHERE i.inhparent = CAST('event' AS regclass) AND pg_get_expr(c.relpartbound, c.oid) <> 'DEFAULT'
                """)
                .execute()
                .map(row -> row.column("relname").get(String.class))
                .toList());
    }
}
