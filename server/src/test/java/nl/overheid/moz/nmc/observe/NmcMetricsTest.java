package nl.overheid.moz.nmc.observe;

import static org.assertj.core.api.Assertions.assertThat;

import io.helidon.metrics.api.Counter;
import io.helidon.metrics.api.Metrics;
import io.helidon.metrics.api.Tag;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The per-DV transition counters, found once and kept, still go with their DV and come back when it counts again. */
class NmcMetricsTest {

    private static final String OIN = "00000009999999999001";

    private static Optional<Counter> transitions(String naar) {
        return Metrics.globalRegistry()
                .counter("nmc.notifications.transitions", List.of(Tag.create("dv", OIN), Tag.create("naar", naar)));
    }

    @Test
    void aCachedCounterOfARemovedDvIsNotWrittenIntoAfterItsRemoval() {
        try (NmcMetrics metrics = new NmcMetrics()) {
            metrics.notificatieStatus(OIN, "verzonden");
            metrics.notificatieStatus(OIN, "verzonden");
            assertThat(transitions("verzonden")).map(Counter::count).contains(2L);

            metrics.retainDvs(Set.of());
            assertThat(transitions("verzonden")).as("gone with its DV").isEmpty();

            metrics.notificatieStatus(OIN, "verzonden");
            assertThat(transitions("verzonden"))
                    .as("a new counter in the registry, not the removed one")
                    .map(Counter::count)
                    .contains(1L);
        }
    }
}
