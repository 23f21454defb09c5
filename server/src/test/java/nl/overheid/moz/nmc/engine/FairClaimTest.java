package nl.overheid.moz.nmc.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A claim round's tokens are spread over groups (budgets, and the DVs within one): an equal share first, leftovers
 * to those with more work.
 */
class FairClaimTest {

    private final UUID a = UUID.fromString("00000000-0000-0000-0000-00000000000a");
    private final UUID b = UUID.fromString("00000000-0000-0000-0000-00000000000b");
    private final UUID c = UUID.fromString("00000000-0000-0000-0000-00000000000c");

    /** A fake database: each DV has so many claimable tasks; records every claim request. */
    private final class Backlogs implements FairClaim.Claimer<TaskRepository.DueWork> {
        final Map<UUID, Integer> left = new LinkedHashMap<>();
        final List<String> requests = new ArrayList<>();

        Backlogs with(UUID dv, int tasks) {
            left.put(dv, tasks);
            return this;
        }

        @Override
        public List<Task> claim(TaskRepository.DueWork dv, int limit) {
            UUID dvId = dv.dvId();
            requests.add(name(dvId) + ":" + limit);
            int n = Math.min(limit, left.getOrDefault(dvId, 0));
            left.merge(dvId, -n, Integer::sum);
            List<Task> tasks = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                tasks.add(new Task(
                        i,
                        TaskKind.VERZENDEN,
                        dvId,
                        null,
                        null,
                        null,
                        Instant.EPOCH,
                        null,
                        1,
                        0,
                        null,
                        null,
                        "{}",
                        0,
                        "svc",
                        Instant.EPOCH));
            }
            return tasks;
        }

        List<TaskRepository.DueWork> due() {
            return left.entrySet().stream()
                    .map(e -> new TaskRepository.DueWork("svc", e.getKey(), e.getValue()))
                    .toList();
        }

        long claimedOf(UUID dv, List<Task> claimed) {
            return claimed.stream().filter(t -> dv.equals(t.dvId())).count();
        }
    }

    private String name(UUID dv) {
        return dv == null ? "system" : dv.equals(a) ? "a" : dv.equals(b) ? "b" : "c";
    }

    @Test
    void aDvWithAHugeBacklogDoesNotCrowdOutTheOthers() {
        Backlogs backlogs = new Backlogs().with(a, 100_000).with(b, 3).with(c, 10);
        List<Task> claimed = FairClaim.claim(backlogs.due(), TaskRepository.DueWork::backlog, 30, backlogs);
        assertThat(claimed).hasSize(30);
        assertThat(backlogs.claimedOf(b, claimed)).as("b gets all it has").isEqualTo(3);
        assertThat(backlogs.claimedOf(c, claimed)).as("c gets its share of 10").isEqualTo(10);
        assertThat(backlogs.claimedOf(a, claimed))
                .as("a gets its share plus the leftovers")
                .isEqualTo(17);
    }

    @Test
    void leftoversGoOnlyToDvsThatHadMoreThanTheirShare() {
        Backlogs backlogs = new Backlogs().with(a, 2).with(b, 50);
        FairClaim.claim(backlogs.due(), TaskRepository.DueWork::backlog, 20, backlogs);
        assertThat(backlogs.requests).containsExactly("a:10", "b:10", "b:8");
    }

    @Test
    void fewerTokensThanDvsServeTheOldestDueFirstOneEach() {
        Backlogs backlogs = new Backlogs().with(a, 5).with(b, 5).with(c, 5);
        List<Task> claimed = FairClaim.claim(backlogs.due(), TaskRepository.DueWork::backlog, 2, backlogs);
        assertThat(claimed).extracting(Task::dvId).containsExactly(a, b);
    }

    @Test
    void noTokensClaimNothing() {
        Backlogs backlogs = new Backlogs().with(a, 5);
        assertThat(FairClaim.claim(backlogs.due(), TaskRepository.DueWork::backlog, 0, backlogs))
                .isEmpty();
        assertThat(backlogs.requests).isEmpty();
        assertThat(FairClaim.claim(List.<TaskRepository.DueWork>of(), TaskRepository.DueWork::backlog, 10, backlogs))
                .isEmpty();
    }

    @Test
    void theShareIsTheTokensDividedEquallyRoundedUp() {
        assertThat(FairClaim.share(50, 20)).isEqualTo(3);
        assertThat(FairClaim.share(50, 50)).isEqualTo(1);
        assertThat(FairClaim.share(1, 20)).isEqualTo(1);
        assertThat(FairClaim.share(60, 3)).isEqualTo(20);
    }

    /**
     * A claim round takes its budgets in the order of their keys, whatever the order of their oldest due work: each
     * budget's take locks its window's row until the round commits, and two instances' rounds taking two budgets in
     * opposite orders deadlocked (review of the engine, finding 3). Within a budget, its DVs keep their order.
     */
    @Test
    void aRoundTakesItsBudgetsInTheOrderOfTheirKeysAndEachBudgetsDvsOldestDueFirst() {
        List<TaskRepository.DueWork> oldestDueFirst = List.of(
                new TaskRepository.DueWork("tweede", c, 3),
                new TaskRepository.DueWork("standaard", b, 2),
                new TaskRepository.DueWork(null, a, 1),
                new TaskRepository.DueWork("standaard", a, 5),
                new TaskRepository.DueWork("tweede", a, 4));

        List<TaskWorker.BudgetWork> budgets = TaskWorker.BudgetWork.of(oldestDueFirst);

        assertThat(budgets).extracting(TaskWorker.BudgetWork::budget).containsExactly(null, "standaard", "tweede");
        assertThat(budgets.get(1).dvs())
                .extracting(TaskRepository.DueWork::dvId)
                .containsExactly(b, a);
        assertThat(budgets.get(2).dvs())
                .extracting(TaskRepository.DueWork::dvId)
                .containsExactly(c, a);
        assertThat(TaskWorker.BudgetWork.of(
                        List.of(new TaskRepository.DueWork("b", a, 1), new TaskRepository.DueWork("a", b, 1))))
                .extracting(TaskWorker.BudgetWork::budget)
                .as("the same two budgets in the other due order: the same lock order")
                .containsExactly("a", "b");
    }
}
