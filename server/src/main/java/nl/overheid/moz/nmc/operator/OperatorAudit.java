package nl.overheid.moz.nmc.operator;

import io.helidon.dbclient.DbTransaction;
import java.time.Clock;
import java.time.Instant;
import java.time.Period;
import java.time.ZoneOffset;
import java.util.List;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.engine.Duty;

/**
 * The audit of operator actions ({@code beheeractie}): one row per action, written in the action's own
 * transaction where the action has one, read newest first; and the duty that deletes rows older than the
 * delivery-proof retention, so a notification id an action names goes no later than the notification.
 */
public final class OperatorAudit implements Duty {

    /** The kinds of action, as the database and the API name them. */
    public enum Action {
        TAKEN_HEROPENEN("taken-heropenen"),
        OVERGANG_FORCEREN("overgang-forceren"),
        DIENSTVERLENER_VASTLEGGEN("dienstverlener-vastleggen"),
        BERICHTTYPE_VASTLEGGEN("berichttype-vastleggen"),
        WEBHOOK_HERVATTEN("webhook-hervatten"),
        CLUSTER_EPOCH_VERHOGEN("cluster-epoch-verhogen"),
        KEK_HERWRAPPEN("kek-herwrappen"),
        PEPPER_COMPROMITTEREN("pepper-compromitteren");

        private final String value;

        Action(String value) {
            this.value = value;
        }

        public String value() {
            return value;
        }

        public static Action of(String value) {
            for (Action action : values()) {
                if (action.value.equals(value)) {
                    return action;
                }
            }
            throw new IllegalArgumentException("unknown action " + value);
        }
    }

    /** A recorded action; {@code details} is JSON without personal data. */
    public record Entry(
            long id,
            Instant time,
            String operator,
            Action action,
            String subject,
            String explanation,
            String details) {}

    /** Which actions to read ({@code null}: any), before id {@code before} (0: from the newest), at most {@code limit}. */
    public record Filter(Action action, Instant from, Instant until, long before, int limit) {}

    private final Database database;
    private final OperatorAuditRepository audit;
    private final Clock clock;
    private final Period retention;

    public OperatorAudit(Database database, OperatorAuditRepository audit, Clock clock, Period retention) {
        this.database = database;
        this.audit = audit;
        this.clock = clock;
        this.retention = retention;
    }

    /** Records an action in the caller's transaction. */
    public void record(
            DbTransaction tx, String operator, Action action, String subject, String explanation, String details) {
        audit.insert(tx, clock.instant(), operator, action, subject, explanation, details);
    }

    /** Records an action that had no transaction of its own (or that took several). */
    public void record(String operator, Action action, String subject, String explanation, String details) {
        database.inTransactionDo(tx -> record(tx, operator, action, subject, explanation, details));
    }

    public List<Entry> list(Filter filter) {
        return database.inTransaction(tx -> audit.list(tx, filter));
    }

    @Override
    public String name() {
        return "operator audit retention";
    }

    @Override
    public int runOnce() {
        Instant before =
                clock.instant().atOffset(ZoneOffset.UTC).minus(retention).toInstant();
        return Math.toIntExact(database.inTransaction(tx -> audit.deleteOlderThan(tx, before)));
    }
}
