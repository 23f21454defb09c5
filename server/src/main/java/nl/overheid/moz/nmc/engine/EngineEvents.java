package nl.overheid.moz.nmc.engine;

import java.time.Duration;

/**
 * What the engine tells whoever watches it (the metrics, wired in the composition root): claim rounds, leases
 * that ran out, postponements. The engine knows no metric; this is its side of the wire. Called inside claim
 * and task transactions, so implementations only count.
 */
public interface EngineEvents {

    EngineEvents NONE = new EngineEvents() {};

    /** A claim round of {@code kind} took {@code took} and claimed {@code claimed} tasks. */
    default void claimRound(TaskKind kind, Duration took, int claimed) {}

    /** A claim took over {@code count} tasks of {@code kind} whose previous lease had run out. */
    default void leasesExpired(TaskKind kind, int count) {}

    /** A task of {@code kind} was postponed because of {@code cause} (the party's error class; null: its plan). */
    default void postponed(TaskKind kind, String cause) {}

    /**
     * A round of the periodic duty {@code duty} ended after {@code took}: {@code completed} false when it failed or
     * outlived its deadline (then it was interrupted).
     */
    default void dutyRan(String duty, Duration took, boolean completed) {}
}
