package nl.overheid.moz.nmc.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The engine benchmark's accounting of the cores: CPU seconds of each party turned into milliseconds a notification. */
class EngineBenchTest {

    @Test
    void cpuPerNotificationDividesEachPartysSecondsByTheNotificationsAndComparesTheTotals() {
        Map<String, Object> drain = Map.of(
                "cpuSecondsNmc", 20.0,
                "cpuSecondsPostgres", 22.0,
                "cpuSecondsHarness", 5.0,
                "cpuSecondsOther", 0.6,
                "cpuSecondsInterrupts", 0.4,
                "cpuSecondsStolen", 7.0,
                "cpuSecondsIdle", 4.0,
                "wallSeconds", 26.0);
        Map<String, Object> pgbench = Map.of(
                "cpuSecondsNmc", 0.0,
                "cpuSecondsPostgres", 24.0,
                "cpuSecondsHarness", 3.0,
                "cpuSecondsOther", 0.0,
                "cpuSecondsIdle", 2.0,
                "wallSeconds", 15.0);

        Figure figure = EngineBench.cpuPerNotification(2000, drain, pgbench);

        // (20 + 22 + 5 + 0.6 + 0.4) s over 2,000; idle time and what the host took (steal) are nobody's
        assertThat(figure.value()).isEqualTo(24.0);
        assertThat(figure.baseline()).isEqualTo(13.5); // (24 + 3) s over 2,000
        assertThat(figure.ratio()).isCloseTo(24.0 / 13.5, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(figure.target()).as("informative").isNull();
        assertThat(figure.details())
                .containsEntry("nmcMs", 10.0)
                .containsEntry("otherMs", 0.5)
                .containsEntry("stolenMs", 3.5)
                .containsEntry("postgresUnderTheNmcMs", 11.0)
                .containsEntry("harnessWithNotifyNlMs", 2.5)
                .containsEntry("postgresUnderPgbenchMs", 12.0)
                .containsEntry("pgbenchClientMs", 1.5)
                .containsEntry("postgresRatio", 0.92);
    }

    @Test
    void aPartyTheMeterCouldNotReadCountsAsNothingAndTheRatioOfANothingIsLeftOut() {
        Figure figure = EngineBench.cpuPerNotification(100, Map.of("cpuSecondsNmc", 1.0), Map.of());

        assertThat(figure.value()).isEqualTo(10.0);
        assertThat(figure.baseline()).isZero();
        assertThat(figure.ratio()).isNull();
        assertThat(figure.details()).containsEntry("postgresRatio", null);
    }
}
