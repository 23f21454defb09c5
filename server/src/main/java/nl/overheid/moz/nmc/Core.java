package nl.overheid.moz.nmc;

import io.helidon.config.Config;
import java.time.Clock;
import java.time.Duration;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.engine.EngineEvents;
import nl.overheid.moz.nmc.engine.OwnedTasks;
import nl.overheid.moz.nmc.engine.SendBudget;
import nl.overheid.moz.nmc.engine.SendBudgetRepository;
import nl.overheid.moz.nmc.engine.TaskKind;
import nl.overheid.moz.nmc.engine.TaskRepository;
import nl.overheid.moz.nmc.engine.UnusedTokens;
import nl.overheid.moz.nmc.engine.WorkSignals;
import nl.overheid.moz.nmc.lifecycle.NotificatieRepository;
import nl.overheid.moz.nmc.lifecycle.PogingRepository;
import nl.overheid.moz.nmc.lifecycle.Transitions;
import nl.overheid.moz.nmc.observe.NmcMetrics;
import nl.overheid.moz.nmc.outbound.PublicTargets;
import nl.overheid.moz.nmc.planning.NotificatieTasks;
import nl.overheid.moz.nmc.register.Register;
import nl.overheid.moz.nmc.register.RegisterRepository;
import nl.overheid.moz.nmc.register.RegisterSeed;
import nl.overheid.moz.nmc.trace.Tracing;

/**
 * The core every step builds on: the register, the lifecycle (the transition function and the rows it guards), the
 * task engine's tables and budget, and where the two meet ({@link NotificatieTasks}); with the metrics and the
 * signals that wake idle workers, and the NMC's own traces.
 */
record Core(
        Database database,
        Clock clock,
        Settings settings,
        Register register,
        PublicTargets publicTargets,
        NmcMetrics metrics,
        EngineEvents engineEvents,
        WorkSignals signals,
        Transitions transitions,
        PogingRepository pogingen,
        NotificatieRepository notificaties,
        TaskRepository tasks,
        OwnedTasks owned,
        NotificatieTasks notificatieTasks,
        SendBudget budget,
        UnusedTokens unusedTokens,
        Tracing tracing) {

    /** Builds the core on an open database whose schema is current, and seeds the register. */
    static Core create(Config config, Settings settings, Database database, Clock clock, Tracing tracing) {
        Register register = new Register(database, new RegisterRepository(), clock, settings.registerCacheTtl());
        PublicTargets publicTargets = new PublicTargets(
                settings.webhook().allowPrivateTargets(), settings.webhook().allowedPorts());
        RegisterSeed.from(config.get("register.seed")).ifPresent(seed -> {
            seed.requireWebhooks(publicTargets::refusedUrl);
            seed.requireNotifyServices(settings.notifyNl().services().keySet());
            seed.apply(register);
        });
        // Fail fast rather than at the first send: a berichttype whose NotifyNL service has no key would get
        // NotifyNL's 400 with another service's key, recorded as niet-bezorgbaar.
        register.requireNotifyServices(settings.notifyNl().services().keySet());

        NotificatieRepository notificaties = new NotificatieRepository();
        NmcMetrics metrics = new NmcMetrics();
        metrics.notifyNlServices(settings.notifyNl().services().keySet());
        // at 0 from the start, so increase() sees the first expiry of a kind
        for (TaskKind kind : TaskKind.values()) {
            metrics.leasesExpired(kind.dbValue(), 0);
        }
        // the flow per status and DV (by its OIN, as every per-DV metric)
        Transitions transitions = new Transitions(
                notificaties,
                clock,
                (tx, dvId, status) ->
                        register.oin(tx, dvId).ifPresent(oin -> metrics.notificatieStatus(oin, status.dbValue())));
        EngineEvents engineEvents = engineEvents(metrics);
        TaskRepository tasks = new TaskRepository(engineEvents);
        // A task whose budget has no limit is never claimed: a NotifyNL service removed from the configuration while
        // sends or reconciliations of its attempts remain would leave their notifications where they are.
        java.util.Set<String> unbudgeted = new java.util.TreeSet<>(database.inTransaction(tasks::budgets));
        unbudgeted.removeAll(settings.notifyNl().services().keySet());
        if (!unbudgeted.isEmpty()) {
            throw new IllegalStateException("tasks still use NotifyNL service(s) " + unbudgeted + ", which have no "
                    + "configuration: keep notifynl.services.<service> until none of its attempts runs");
        }
        // A budget per NotifyNL service, its key the service's name (the value of berichttype.notify_service).
        SendBudget budget = new SendBudget(
                new SendBudgetRepository(),
                settings.notifyNl().perMinute(),
                settings.engine().reconcileShare());
        return new Core(
                database,
                clock,
                settings,
                register,
                publicTargets,
                metrics,
                engineEvents,
                new WorkSignals(),
                transitions,
                new PogingRepository(clock),
                notificaties,
                tasks,
                new OwnedTasks(database, tasks),
                new NotificatieTasks(tasks, transitions, register),
                budget,
                new UnusedTokens(database, budget, clock),
                tracing);
    }

    /** The engine's events, counted by the metrics (the engine knows no metric). */
    private static EngineEvents engineEvents(NmcMetrics metrics) {
        return new EngineEvents() {
            @Override
            public void claimRound(TaskKind kind, Duration took, int claimed) {
                metrics.claimRound(kind.dbValue(), took, claimed);
            }

            @Override
            public void leasesExpired(TaskKind kind, int count) {
                metrics.leasesExpired(kind.dbValue(), count);
            }

            @Override
            public void postponed(TaskKind kind, String cause) {
                metrics.postponed(kind.dbValue(), cause);
            }

            @Override
            public void dutyRan(String duty, Duration took, boolean completed) {
                metrics.dutyRan(duty, took, completed);
            }
        };
    }
}
