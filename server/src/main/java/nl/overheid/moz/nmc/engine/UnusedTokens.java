package nl.overheid.moz.nmc.engine;

import java.time.Clock;
import nl.overheid.moz.nmc.db.Database;

/**
 * The budget is spent only on calls made (design §6): a claim takes one token per task, and a task that ends
 * without making the call its token was for (already delivered or terminal, expired, the LDV store or the
 * Profielservice down, no address, found at NotifyNL by reference) gives it back. A task that made the call
 * keeps it, whatever the answer: NotifyNL counts every request it authenticated, and a time-out or a broken
 * connection may have reached it. Given back only within the claim's window (a past window's tokens expired).
 */
public final class UnusedTokens {

    private final Database database;
    private final SendBudget budget;
    private final Clock clock;

    public UnusedTokens(Database database, SendBudget budget, Clock clock) {
        this.database = database;
        this.budget = budget;
        this.clock = clock;
    }

    /** Gives back the token {@code task}'s claim took from the {@code purpose} share of its budget. */
    public void giveBack(Task task, TaskHandler.Budget purpose) {
        if (task.budget() == null || task.claimedAt() == null || purpose == TaskHandler.Budget.NONE) {
            return;
        }
        database.inTransactionDo(
                tx -> budget.budgetReturn(tx, task.budget(), purpose, 1, task.claimedAt(), clock.instant()));
    }
}
