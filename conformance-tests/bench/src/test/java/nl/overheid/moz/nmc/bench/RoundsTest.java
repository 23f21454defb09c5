package nl.overheid.moz.nmc.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The flood benchmark's rounds pooled: its phases are measured in rounds that take turns, and each phase's figure is
 * over its rounds together, as if measured at once.
 */
class RoundsTest {

    private static Latencies millis(long... values) {
        Latencies latencies = new Latencies();
        for (long value : values) {
            latencies.recordMicros(value * 1000);
        }
        return latencies;
    }

    @Test
    void twoOutcomesTogetherHaveBothsCallsStatusesAndLatencies() {
        HttpLoad.Outcome first = new HttpLoad.Outcome(2, 3, Map.of(202, 2L, 429, 1L), millis(1, 2), 8.0);
        HttpLoad.Outcome second = new HttpLoad.Outcome(1, 2, Map.of(202, 1L, -1, 1L), millis(30), 7.5);

        HttpLoad.Outcome both = first.plus(second);

        assertThat(both.ok()).isEqualTo(3);
        assertThat(both.requests()).isEqualTo(5);
        assertThat(both.statuses()).containsExactly(Map.entry(-1, 1L), Map.entry(202, 3L), Map.entry(429, 1L));
        assertThat(both.seconds()).isEqualTo(15.5);
        assertThat(both.latencies().count()).isEqualTo(3);
        // the pooled tail is the slow round's, not a mean of the rounds' tails
        assertThat(both.latencies().maxMillis()).isBetween(29.9, 30.1);
        assertThat(first.latencies().count())
                .as("the parts are left as they were")
                .isEqualTo(2);
    }

    @Test
    void cpuSecondsOfTwoSpansAreAdded() {
        Map<String, Object> first = new LinkedHashMap<>();
        first.put("cpuSecondsNmc", 1.25);
        first.put("wallSeconds", 8.0);
        Map<String, Object> second = Map.of("cpuSecondsNmc", 0.5, "wallSeconds", 7.5, "cpuSecondsIdle", 3.0);

        assertThat(CpuMeter.sum(first, second))
                .containsEntry("cpuSecondsNmc", 1.75)
                .containsEntry("wallSeconds", 15.5)
                .containsEntry("cpuSecondsIdle", 3.0);
        assertThat(CpuMeter.sum(Map.of(), second)).isEqualTo(second);
    }

    @Test
    void theStagesOverSeveralSpansAreTheirSumsOverTheirCounts() {
        String zero = "nmc_acceptance_stage_duration_seconds_count{stap=\"groep\"} 0\n"
                + "nmc_acceptance_stage_duration_seconds_sum{stap=\"groep\"} 0\n";
        String afterFirst = "nmc_acceptance_stage_duration_seconds_count{stap=\"groep\"} 3\n"
                + "nmc_acceptance_stage_duration_seconds_sum{stap=\"groep\"} 0.003\n";
        String beforeSecond = "nmc_acceptance_stage_duration_seconds_count{stap=\"groep\"} 10\n"
                + "nmc_acceptance_stage_duration_seconds_sum{stap=\"groep\"} 1.0\n";
        String afterSecond = "nmc_acceptance_stage_duration_seconds_count{stap=\"groep\"} 11\n"
                + "nmc_acceptance_stage_duration_seconds_sum{stap=\"groep\"} 1.005\n";

        Map<String, Object> stages = AcceptanceBench.stages(
                java.util.List.of(
                        new AcceptanceBench.MetricsSpan(zero, afterFirst),
                        new AcceptanceBench.MetricsSpan(beforeSecond, afterSecond)),
                "operatie=\"x\"");

        // (3 ms + 5 ms) over 4 calls; the 7 calls and 997 ms between the spans are not counted
        assertThat(stages).containsEntry("groep", 2.0);
    }
}
