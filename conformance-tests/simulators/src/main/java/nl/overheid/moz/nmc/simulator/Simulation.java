package nl.overheid.moz.nmc.simulator;

import java.time.Clock;

/**
 * The state the simulator's endpoints share: its configuration, each service's changeable state, notifications,
 * callbacks and keys, and when it started (the simulated templates' {@code created_at}).
 */
record Simulation(
        NotifyNlSimulator.Config config,
        java.util.Map<java.util.UUID, ServiceState> states,
        NotificationStore store,
        CallbackSender callbacks,
        NotifyJwtVerifier jwtVerifier,
        Clock clock,
        java.time.Instant started) {

    /** One line to the configured log; callers pass ids, references and statuses only, never personal data. */
    void log(String line) {
        config.log().accept(line);
    }

    /** The state of the service a request acts for. */
    ServiceState state(NotifyNlSimulator.Service service) {
        return states.get(java.util.UUID.fromString(service.serviceId()));
    }
}
