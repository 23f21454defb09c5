package nl.overheid.moz.nmc.engine;

/**
 * A periodic background duty that is not a task row (the control duty, event-log partitions): run by the
 * {@link DutyRunner} on its interval, on every instance. A duty must be idempotent across instances.
 */
public interface Duty {

    /** A short name for logs. */
    String name();

    /** Does the duty's work once; returns how many things it did (0: nothing was due). */
    int runOnce();
}
