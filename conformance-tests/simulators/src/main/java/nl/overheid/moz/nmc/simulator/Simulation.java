package nl.overheid.moz.nmc.simulator;

import java.time.Clock;

/** The state the simulator's endpoints share: its configuration, notifications, callbacks and key. */
record Simulation(
        NotifyNlSimulator.Config config,
        NotificationStore store,
        CallbackSender callbacks,
        NotifyJwtVerifier jwtVerifier,
        Clock clock) {

    /** One line to the configured log; callers pass ids, references and statuses only, never personal data. */
    void log(String line) {
        config.log().accept(line);
    }
}
