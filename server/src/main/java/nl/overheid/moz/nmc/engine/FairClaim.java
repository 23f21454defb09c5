package nl.overheid.moz.nmc.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * Spreads a claim round's tokens over groups with due work, so that one group's peak does not block the
 * others (design §6): first an equal share each (rounded up), then whatever is left to the groups in order,
 * for those with more work than their share. A claim round uses it twice: over the budgets with due work
 * (so a budget whose window is used up leaves the round to the others), and within a budget over its DVs.
 * Pure, so the arithmetic is tested without a database.
 */
final class FairClaim {

    /** Claims up to {@code limit} due tasks of one group. */
    @FunctionalInterface
    interface Claimer<G> {
        List<Task> claim(G group, int limit);
    }

    private FairClaim() {}

    static <G> List<Task> claim(List<G> groups, ToLongFunction<G> backlog, int tokens, Claimer<G> claimer) {
        List<Task> claimed = new ArrayList<>();
        if (groups.isEmpty() || tokens <= 0) {
            return claimed;
        }
        int share = share(tokens, groups.size());
        for (G group : groups) {
            int limit = Math.min(share, tokens - claimed.size());
            if (limit <= 0) {
                break;
            }
            claimed.addAll(claimer.claim(group, limit));
        }
        for (G group : groups) {
            int limit = tokens - claimed.size();
            if (limit <= 0) {
                break;
            }
            if (backlog.applyAsLong(group) > share) {
                claimed.addAll(claimer.claim(group, limit));
            }
        }
        return claimed;
    }

    /** The first pass's share of each group: the tokens divided equally, rounded up, at least one. */
    static int share(int tokens, int groupCount) {
        return Math.max(1, (int) Math.ceil((double) tokens / groupCount));
    }
}
