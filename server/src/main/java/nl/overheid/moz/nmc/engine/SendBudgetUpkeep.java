package nl.overheid.moz.nmc.engine;

import java.time.Clock;
import java.time.Duration;
import nl.overheid.moz.nmc.db.Database;

/**
 * Removes the send budget's past windows (one row per NotifyNL service a minute) and its ended closures, so the
 * tables stay small.
 */
public final class SendBudgetUpkeep implements Duty {

    /** Past windows kept a while, for an operator looking at the last minutes. */
    private static final Duration KEPT = Duration.ofMinutes(10);

    private final Database database;
    private final SendBudget budget;
    private final Clock clock;

    public SendBudgetUpkeep(Database database, SendBudget budget, Clock clock) {
        this.database = database;
        this.budget = budget;
        this.clock = clock;
    }

    @Override
    public String name() {
        return "send budget windows";
    }

    @Override
    public int runOnce() {
        return Math.toIntExact(database.inTransaction(
                tx -> budget.budgetForget(tx, clock.instant().minus(KEPT))
                        + budget.forgetClosures(tx, clock.instant().minus(KEPT))));
    }
}
