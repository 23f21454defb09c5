package nl.overheid.moz.nmc.acceptance;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.testing.MutableClock;
import nl.overheid.moz.nmc.testing.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The quota per DV per minute as counters per second: exact under concurrency, shared by instances, a
 * window that slides by the second, slots given back, and a Retry-After that says when a slot frees up.
 */
class AcceptanceQuotaTest {

    private static final TestDatabase DB = TestDatabase.get();
    private final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T10:15:00.250Z"));
    private final UUID dv = UUID.randomUUID();
    private final List<Database> opened = new ArrayList<>();

    @BeforeEach
    void reset() {
        DB.reset();
    }

    @AfterEach
    void close() {
        opened.forEach(Database::close);
    }

    /** An instance of its own: its own connection pool on the same database. */
    private AcceptanceQuota instance() {
        Database database = DB.open();
        opened.add(database);
        return new AcceptanceQuota(database, new QuotaRepository(), clock);
    }

    @Test
    void concurrentTakesOfSeveralInstancesGrantTheQuotaAndNotOneMore() throws Exception {
        List<AcceptanceQuota> instances = List.of(instance(), instance());
        AtomicInteger granted = new AtomicInteger();
        List<Thread> takers = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            AcceptanceQuota quota = instances.get(i % 2);
            takers.add(Thread.ofVirtual().start(() -> {
                for (int take = 0; take < 10; take++) {
                    granted.addAndGet(quota.take(dv, 57, 1 + take % 3).granted());
                }
            }));
        }
        for (Thread taker : takers) {
            taker.join();
        }
        assertThat(granted.get()).as("16 takers wanting 190 slots in all").isEqualTo(57);
    }

    @Test
    void theWindowSlidesByTheSecond() {
        AcceptanceQuota quota = instance();
        assertThat(quota.take(dv, 3, 1).granted()).isOne();
        clock.advance(Duration.ofSeconds(30));
        assertThat(quota.take(dv, 3, 1).granted()).isOne();
        assertThat(quota.take(dv, 3, 1).granted()).isOne();
        assertThat(quota.take(dv, 3, 1).granted())
                .as("three in the last minute")
                .isZero();
        assertThat(quota.retryAfter(dv))
                .as("the first leaves the window 30 s from now")
                .isEqualTo(Duration.ofSeconds(30));
        clock.advance(Duration.ofSeconds(30));
        assertThat(quota.take(dv, 3, 1).granted())
                .as("the first left the window")
                .isOne();
        assertThat(quota.take(dv, 3, 1).granted()).isZero();
        assertThat(quota.retryAfter(dv)).isEqualTo(Duration.ofSeconds(30));
        assertThat(quota.take(UUID.randomUUID(), 3, 1).granted())
                .as("another DV has a quota of its own")
                .isOne();
    }

    @Test
    void aSlotGivenBackCanBeTakenAgain() {
        AcceptanceQuota quota = instance();
        AcceptanceQuota.Slots first = quota.take(dv, 2, 1);
        assertThat(quota.take(dv, 2, 1).granted()).isOne();
        assertThat(quota.take(dv, 2, 1).granted()).isZero();
        quota.giveBack(first, 1);
        assertThat(quota.take(dv, 2, 1).granted()).isOne();
        assertThat(quota.take(dv, 2, 1).granted()).isZero();
    }

    @Test
    void aTakeOfManyGetsWhatIsLeftAndNoMore() {
        AcceptanceQuota quota = instance();
        assertThat(quota.take(dv, 250, 100).granted()).isEqualTo(100);
        clock.advance(Duration.ofSeconds(1));
        assertThat(quota.take(dv, 250, 100).granted()).isEqualTo(100);
        assertThat(quota.take(dv, 250, 100).granted())
                .as("what the minute has left")
                .isEqualTo(50);
        assertThat(quota.take(dv, 250, 100).granted()).isZero();
    }

    @Test
    void countersOfSecondsOutsideEveryWindowAreRemoved() {
        AcceptanceQuota quota = instance();
        quota.take(dv, 10, 1);
        clock.advance(Duration.ofSeconds(30));
        quota.take(dv, 10, 1);
        assertThat(quota.runOnce()).isZero();
        clock.advance(Duration.ofSeconds(31));
        assertThat(quota.runOnce()).as("the first second left the window").isEqualTo(1);
        assertThat(quota.take(dv, 2, 1).granted())
                .as("one left in the window, one free")
                .isOne();
        assertThat(quota.take(dv, 2, 1).granted()).isZero();
    }
}
