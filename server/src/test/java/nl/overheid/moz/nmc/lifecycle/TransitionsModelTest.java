package nl.overheid.moz.nmc.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.db.Sql;
import nl.overheid.moz.nmc.testing.MutableClock;
import nl.overheid.moz.nmc.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Model-based: random sequences of attempted transitions, applied both to a tiny pure model (status,
 * version, event list) and to the real database-backed transition function. After every step the database
 * must equal the model, and a refused step must change nothing. Seeded, so a failure is reproducible.
 */
class TransitionsModelTest {

    private static final TestDatabase DB = TestDatabase.get();
    private static final long SEED = Long.getLong("nmc.model.seed", 20261130L);
    private static Database database;

    @BeforeAll
    static void open() {
        database = DB.open();
    }

    @AfterAll
    static void close() {
        database.close();
    }

    /** The model: what the rules say the notification should look like. */
    private static final class Model {
        NotificatieStatus status = NotificatieStatus.AANGENOMEN;
        final List<String> events = new ArrayList<>(List.of("null>aangenomen"));

        boolean apply(NotificatieStatus naar) {
            if (!AllowedTransitions.allowed(status, naar)) {
                return false;
            }
            events.add(status + ">" + naar);
            status = naar;
            return true;
        }
    }

    @Test
    void theDatabaseFollowsTheModelThroughRandomSequences() {
        UUID dvId = DB.resetWithOneDv(database);
        Transitions transitions = new Transitions(MutableClock.startingNow());
        Random random = new Random(SEED);
        NotificatieStatus[] statuses = NotificatieStatus.values();

        for (int run = 0; run < 40; run++) {
            UUID id = UUID.randomUUID();
            database.inTransaction(c -> transitions.accept(c, new NewNotificatie(id, dvId, id.toString().getBytes(), 1,
                    id.toString().getBytes(), null, "test-bericht", "decentraal", null, new byte[] {1},
                    new byte[] {2}, new byte[] {3}, 1, "trace")));
            Model model = new Model();
            for (int step = 0; step < 12; step++) {
                NotificatieStatus naar = statuses[random.nextInt(statuses.length)];
                boolean allowed = model.apply(naar);
                boolean applied;
                try {
                    database.inTransactionDo(c -> transitions.apply(c, transitions.lock(c, id).orElseThrow(), naar,
                            null));
                    applied = true;
                } catch (TransitionRefused refused) {
                    applied = false;
                }
                assertThat(applied).as("seed %d run %d step %d: %s", SEED, run, step, naar).isEqualTo(allowed);
                Transitions.Locked actual = database.inTransaction(c -> transitions.lock(c, id).orElseThrow());
                assertThat(actual.status()).isEqualTo(model.status);
                assertThat(actual.versie()).isEqualTo(model.events.size());
                List<String> events = database.inTransaction(c -> Sql.on(c, """
                        SELECT coalesce(van, 'null') || '>' || naar AS step FROM event
                         WHERE notificatie = :id ORDER BY volgnummer
                        """).bind("id", id).list(r -> r.string("step")));
                assertThat(events).isEqualTo(model.events);
            }
        }
    }
}
