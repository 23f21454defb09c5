package nl.overheid.moz.nmc.conformance;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.WireMockServer;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import nl.overheid.moz.nmc.process.NmcProcess;
import nl.overheid.moz.nmc.testing.Http;
import nl.overheid.moz.nmc.testing.TestDatabase;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A DV's management channel that answers its headers at once and then drips its body over ten minutes (issue 19):
 * the report to it must not hold the NMC's periodic duties. The channel timeout is set to ten minutes on purpose, the
 * worst a configuration can do, so only the duty's own deadline ends the call; meanwhile notifications are accepted
 * and finalised, and the gauges and the control duty keep completing their rounds.
 */
@Tag("faults")
class DrippingChannelTest {

    private static final long SEED = Long.getLong("nmc.faults.seed", 20_261_201L);
    private static final int NOTIFICATIONS = 40;
    private static final Duration START = Duration.ofSeconds(90);
    private static final String UNACKNOWLEDGED = "unacknowledged terminal statuses";

    @Test
    void aChannelThatDripsForTenMinutesHoldsNoOtherDutyAndNoNotification() {
        long began = System.nanoTime();
        WireMockServer channel =
                new WireMockServer(options().dynamicPort().containerThreads(40).asynchronousResponseEnabled(false));
        channel.start();
        try (FaultRig rig = new FaultRig("dripping-channel", TestDatabase.separate())) {
            channel.stubFor(post(urlPathEqualTo("/beheer"))
                    .willReturn(
                            aResponse().withStatus(200).withBody(new byte[600]).withChunkedDribbleDelay(600, (int)
                                    Duration.ofMinutes(10).toMillis())));
            NmcProcess nmc = rig.nmc("nmc", rig.parties.notifyNl.baseUrl(), """
                    feed:
                      unacknowledged-check-interval: PT0S
                      unacknowledged-report-interval: PT1S
                      management-channel-timeout: PT10M
                    engine:
                      duty-deadline: PT3S
                    """);
            nmc.start();
            nmc.awaitHealthy(START);
            // Every DV of the load reports to the dripping channel one second after a terminal status.
            rig.database.execute(
                    "UPDATE dienstverlener SET beheerkanaal = '" + channel.baseUrl()
                            + "/beheer', bevestigingstermijn = interval '1 second'",
                    null);
            Http http = new Http(nmc.baseUrl(), nmc.managementUrl());

            // Slow enough that most notifications end while the channel drips.
            DvLoad load = new DvLoad(
                            SEED,
                            NOTIFICATIONS,
                            List.of(TestNmc.DV_A, TestNmc.DV_B),
                            DvLoad.MIXED,
                            0,
                            rig,
                            i -> nmc.baseUrl())
                    .start(2);
            FaultRig.await(
                    START,
                    "a report under way on the dripping channel",
                    () -> !channel.findAll(postRequestedFor(urlPathEqualTo("/beheer")))
                            .isEmpty());
            Instant dripping = Instant.now();
            double gaugesAtDrip = lastCompleted(http, "operational gauges");
            double controlAtDrip = lastCompleted(http, "controle");

            load.awaitAccepted(START);
            Duration drained = rig.awaitAllTerminal(load, Duration.ofMinutes(3));
            rig.verify(load, nmc.baseUrl());
            long endedWhileDripping = rig.count(
                    "SELECT count(*) FROM notificatie WHERE terminaal_sinds > '" + dripping + "'::timestamptz");
            FaultRig.await(
                    Duration.ofSeconds(30),
                    "the gauges and the control duty completing rounds after the drip began",
                    () -> lastCompleted(http, "operational gauges") > gaugesAtDrip
                            && lastCompleted(http, "controle") > controlAtDrip);
            double cut =
                    series(http, "nmc_duty_rounds_total", "duty=\"" + UNACKNOWLEDGED + "\"", "uitkomst=\"mislukt\"");

            assertThat(endedWhileDripping)
                    .as("notifications finalised while the channel dripped")
                    .isGreaterThanOrEqualTo(NOTIFICATIONS / 4);
            assertThat(cut)
                    .as("the report rounds were cut at their deadline, not left to drip")
                    .isGreaterThanOrEqualTo(1);
            assertThat(nmc.logs()).doesNotContain("Exception in thread");

            Map<String, Object> figures = new LinkedHashMap<>();
            figures.put("notifications", NOTIFICATIONS);
            figures.put("endedWhileDripping", endedWhileDripping);
            figures.put(
                    "reportCalls",
                    channel.findAll(postRequestedFor(urlPathEqualTo("/beheer"))).size());
            figures.put("roundsCut", cut);
            figures.put("drain", FaultRig.seconds(drained));
            figures.put("duration", FaultRig.seconds(Duration.ofNanos(System.nanoTime() - began)));
            FaultRig.report("dripping-channel", figures);
        } finally {
            channel.stop();
        }
    }

    /** The sum of a metric's series whose labels include all of {@code labels}, in any order. */
    private static double series(Http http, String name, String... labels) {
        return http.get("/observe/metrics", null)
                .body()
                .lines()
                .filter(line -> line.startsWith(name + "{"))
                .filter(line -> java.util.Arrays.stream(labels).allMatch(line::contains))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .sum();
    }

    /** When the duty last completed a round (epoch seconds), 0 before its first. */
    private static double lastCompleted(Http http, String duty) {
        return http.metric("nmc_duty_last_completed_seconds", "duty=\"" + duty + "\"")
                .orElse(0);
    }
}
