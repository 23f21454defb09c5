package nl.overheid.moz.nmc.engine;

import io.helidon.dbclient.DbTransaction;
import java.util.List;

/**
 * A kind whose whole work is one transaction under its task's two locks, with no party to call (applying stored
 * receipts, finalising): alone it runs as {@link OwnedTasks#underLocks}, and a claimed batch runs together in one
 * transaction ({@link OwnedTasks#underLocksTogether}), each task's {@link #work} the same either way.
 *
 * @param <S> what the subject lock yields (the locked notification)
 */
public interface LockedWork<S> extends TaskHandler {

    /** The work of one task, in a transaction that holds its subject and its task row. */
    void work(DbTransaction tx, Task task, S subject);

    @Override
    SubjectLock<S> subjectLock();

    /** How this kind's transactions take their locks. */
    OwnedTasks owned();

    @Override
    default void execute(Task task) {
        owned().underLocks(task, subjectLock(), (tx, subject) -> work(tx, task, subject));
    }

    @Override
    default boolean together() {
        return true;
    }

    @Override
    default void executeTogether(List<Task> batch, OwnedTasks.Each each) {
        owned().underLocksTogether(batch, subjectLock(), each, this::work);
    }
}
