package nl.overheid.moz.nmc.lifecycle;

import static nl.overheid.moz.nmc.lifecycle.NotificatieStatus.AANGENOMEN;
import static nl.overheid.moz.nmc.lifecycle.NotificatieStatus.BEZORGD;
import static nl.overheid.moz.nmc.lifecycle.NotificatieStatus.BEZORGSTATUS_ONBEKEND;
import static nl.overheid.moz.nmc.lifecycle.NotificatieStatus.DEFINITIEF_BEZORGD;
import static nl.overheid.moz.nmc.lifecycle.NotificatieStatus.GEANNULEERD;
import static nl.overheid.moz.nmc.lifecycle.NotificatieStatus.IN_VERZENDING;
import static nl.overheid.moz.nmc.lifecycle.NotificatieStatus.NIET_BEZORGBAAR;
import static nl.overheid.moz.nmc.lifecycle.NotificatieStatus.TECHNISCH_MISLUKT;
import static nl.overheid.moz.nmc.lifecycle.NotificatieStatus.VERLOPEN;
import static nl.overheid.moz.nmc.lifecycle.NotificatieStatus.VERZONDEN;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.testing.MutableClock;
import nl.overheid.moz.nmc.testing.Notifications;
import nl.overheid.moz.nmc.testing.TestDatabase;
import org.junit.jupiter.api.Test;

/**
 * Model-based: random sequences of attempted transitions, applied both to a tiny pure model (status,
 * version, event list) and to the real database-backed transition function. After every step the database
 * must equal the model, and a refused step must change nothing. Seeded, so a failure is reproducible.
 *
 * <p>The model's oracle is written here from the design's rules (§7.1–§7.5, the ADR's prose), not taken
 * from {@link AllowedTransitions} or the trigger's table: a wrong pair in either shows up as a difference.
 */
class TransitionsModelTest {

    private static final TestDatabase DB = TestDatabase.get();
    private static final long SEED = Long.getLong("nmc.model.seed", 20261130L);
    private static final Database database = DB.shared();

    /**
     * Who may enter each status, rule by rule. Each line is one sentence of the design; none refers to the
     * implementation's table.
     */
    static boolean allowedByTheRules(NotificatieStatus from, NotificatieStatus to) {
        // Terminal statuses absorb; bezorgstatus-onbekend is the one a late receipt may still correct.
        if (from.terminal() && from != BEZORGSTATUS_ONBEKEND) {
            return false;
        }
        return switch (to) {
            // Only acceptance creates aangenomen; nothing returns to it.
            case AANGENOMEN -> false;
            // The start of the first send.
            case IN_VERZENDING -> from == AANGENOMEN;
            // Cancelling is possible only while aangenomen.
            case GEANNULEERD -> from == AANGENOMEN;
            // NotifyNL's 201 on the first attempt; the claim of the resend (an event, the status stays); a
            // temporary failure within the MEBV period on the attempt bezorgd rests on.
            case VERZONDEN -> from == IN_VERZENDING || from == VERZONDEN || from == BEZORGD;
            // delivered on any attempt, also a late one after bezorgstatus-onbekend.
            case BEZORGD -> from == VERZONDEN || from == BEZORGSTATUS_ONBEKEND;
            // The finaliser, after the MEBV period, and only from bezorgd.
            case DEFINITIEF_BEZORGD -> from == BEZORGD;
            // NotifyNL 400 or no contact data (in-verzending), a permanent failure or a failed attempt 2
            // (verzonden, bezorgd within the period), a late permanent failure (bezorgstatus-onbekend).
            case NIET_BEZORGBAAR -> from != AANGENOMEN;
            // An exhausted send task, before or after the claim; technical failure of attempt 2.
            case TECHNISCH_MISLUKT -> from == AANGENOMEN || from == IN_VERZENDING || from == VERZONDEN;
            // geldig_tot passed before an attempt could start (any status before the outcome).
            case VERLOPEN -> from == AANGENOMEN || from == IN_VERZENDING || from == VERZONDEN || from == BEZORGD;
            // No outcome to be had: only an attempt at NotifyNL can end up unknown.
            case BEZORGSTATUS_ONBEKEND -> from == VERZONDEN;
        };
    }

    /** The model: what the rules say the notification should look like. */
    private static final class Model {
        NotificatieStatus status = AANGENOMEN;
        final List<String> events = new ArrayList<>(List.of("null>aangenomen"));

        boolean apply(NotificatieStatus to) {
            if (!allowedByTheRules(status, to)) {
                return false;
            }
            events.add(status + ">" + to);
            status = to;
            return true;
        }
    }

    @Test
    void theRulesAllowExactlyTheTwentyPairsOfTheStatusTableBesidesAcceptance() {
        Set<AllowedTransitions.Pair> byTheRules = new java.util.HashSet<>();
        for (NotificatieStatus from : NotificatieStatus.values()) {
            for (NotificatieStatus to : NotificatieStatus.values()) {
                if (allowedByTheRules(from, to)) {
                    byTheRules.add(new AllowedTransitions.Pair(from, to));
                }
            }
        }
        assertThat(byTheRules).hasSize(20);
        byTheRules.add(new AllowedTransitions.Pair(null, AANGENOMEN));
        assertThat(AllowedTransitions.PAIRS)
                .as("the implementation's table follows the rules")
                .isEqualTo(byTheRules);
    }

    @Test
    void theDatabaseFollowsTheModelThroughRandomSequences() {
        UUID dvId = DB.resetWithOneDv(database);
        Transitions transitions = new Transitions(new NotificatieRepository(), MutableClock.startingNow());
        Random random = new Random(SEED);
        NotificatieStatus[] statuses = NotificatieStatus.values();
        Set<String> visitedPairs = new java.util.HashSet<>();

        for (int run = 0; run < 200; run++) {
            UUID id = UUID.randomUUID();
            database.inTransaction(tx -> transitions.accept(tx, Notifications.aNotificationWithId(id, dvId)));
            Model model = new Model();
            for (int step = 0; step < 12; step++) {
                NotificatieStatus from = model.status;
                // Half the steps take a move the rules allow that keeps the notification alive, so the walk gets
                // deep; some take any allowed move; the rest probe refusals.
                List<NotificatieStatus> allowedMoves = java.util.Arrays.stream(statuses)
                        .filter(to -> allowedByTheRules(from, to))
                        .toList();
                List<NotificatieStatus> liveMoves = allowedMoves.stream()
                        .filter(to -> !to.terminal() || to == BEZORGSTATUS_ONBEKEND)
                        .toList();
                int roll = random.nextInt(10);
                NotificatieStatus to = roll < 5 && !liveMoves.isEmpty()
                        ? liveMoves.get(random.nextInt(liveMoves.size()))
                        : roll < 8 && !allowedMoves.isEmpty()
                                ? allowedMoves.get(random.nextInt(allowedMoves.size()))
                                : statuses[random.nextInt(statuses.length)];
                boolean allowed = model.apply(to);
                boolean applied;
                try {
                    database.inTransactionDo(tx -> transitions.apply(
                            tx,
                            transitions.lock(tx, id).orElseThrow(),
                            to,
                            to.redenen().stream().findFirst().orElse(null)));
                    applied = true;
                } catch (TransitionRefused refused) {
                    applied = false;
                }
                assertThat(applied)
                        .as("seed %d run %d step %d: %s -> %s", SEED, run, step, from, to)
                        .isEqualTo(allowed);
                if (applied) {
                    visitedPairs.add(from + ">" + to);
                }
                Transitions.Locked actual =
                        database.inTransaction(tx -> transitions.lock(tx, id).orElseThrow());
                assertThat(actual.status()).isEqualTo(model.status);
                assertThat(actual.version()).isEqualTo(model.events.size());
                List<String> events = database.inTransaction(tx -> tx.createQuery("""
                        SELECT coalesce(van, 'null') || '>' || naar AS step FROM event
                         WHERE notificatie = :id ORDER BY volgnummer
                        """)
                        .addParam("id", id)
                        .execute()
                        .map(r -> r.column("step").get(String.class))
                        .toList());
                assertThat(events).isEqualTo(model.events);
            }
        }
        assertThat(visitedPairs)
                .as("the walk reaches every allowed pair (seed %d)", SEED)
                .hasSize(20);
    }
}
