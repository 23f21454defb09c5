package nl.overheid.moz.nmc.planning;

import java.time.Clock;
import java.time.Duration;
import java.util.function.IntFunction;
import nl.overheid.moz.nmc.engine.OwnedTasks;
import nl.overheid.moz.nmc.engine.TaskRepository;
import nl.overheid.moz.nmc.ldv.ProcessingLog;
import nl.overheid.moz.nmc.lifecycle.NotificatieRepository;
import nl.overheid.moz.nmc.lifecycle.PogingRepository;
import nl.overheid.moz.nmc.lifecycle.Transitions;
import nl.overheid.moz.nmc.observe.NmcMetrics;

/**
 * What every task handler works with, built once by the wiring and handed to each: the claimed task's own
 * transactions ({@link OwnedTasks}) and rows, the notification's tasks and the transition function, the attempts
 * and notifications it reads, the processing log it writes before a call, the metrics, the clock, and the
 * engine's lease and backoff. A handler's constructor then names only what is its own.
 *
 * @param lease   how long a claim owns its task; extended before each external call
 * @param backoff the wait before the n-th retry of a postponed task
 */
public record HandlerSupport(
        OwnedTasks owned,
        TaskRepository tasks,
        NotificatieTasks notificatieTasks,
        Transitions transitions,
        PogingRepository pogingen,
        NotificatieRepository notificaties,
        ProcessingLog ldv,
        NmcMetrics metrics,
        Clock clock,
        Duration lease,
        IntFunction<Duration> backoff) {}
