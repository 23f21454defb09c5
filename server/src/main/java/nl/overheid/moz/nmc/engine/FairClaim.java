package nl.overheid.moz.nmc.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Spreads a claim round's tokens over the DVs with due work, so that one DV's peak does not block the
 * others (design §6): first an equal share each (rounded up), then whatever is left to the DVs in order,
 * for those with more work than their share. Pure, so the arithmetic is tested without a database.
 */
final class FairClaim {

    /** Claims up to {@code limit} due tasks of one DV ({@code dvId} null: system tasks). */
    @FunctionalInterface
    interface Claimer {
        List<Task> claim(UUID dvId, int limit);
    }

    private FairClaim() {
    }

    static List<Task> claim(List<TaskRepository.DueWork> dvs, int tokens, Claimer claimer) {
        List<Task> claimed = new ArrayList<>();
        if (dvs.isEmpty() || tokens <= 0) {
            return claimed;
        }
        int share = share(tokens, dvs.size());
        for (TaskRepository.DueWork dv : dvs) {
            int limit = Math.min(share, tokens - claimed.size());
            if (limit <= 0) {
                break;
            }
            claimed.addAll(claimer.claim(dv.dvId(), limit));
        }
        for (TaskRepository.DueWork dv : dvs) {
            int limit = tokens - claimed.size();
            if (limit <= 0) {
                break;
            }
            if (dv.backlog() > share) {
                claimed.addAll(claimer.claim(dv.dvId(), limit));
            }
        }
        return claimed;
    }

    /** The first pass's share of each DV: the tokens divided equally, rounded up, at least one. */
    static int share(int tokens, int dvCount) {
        return Math.max(1, (int) Math.ceil((double) tokens / dvCount));
    }
}
