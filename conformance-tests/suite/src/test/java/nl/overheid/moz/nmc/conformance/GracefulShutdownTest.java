package nl.overheid.moz.nmc.conformance;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import nl.overheid.moz.nmc.process.NmcProcess;
import nl.overheid.moz.nmc.simulator.NotifyNlSimulator;
import nl.overheid.moz.nmc.testing.TestDatabase;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * SIGTERM under load (what a container platform sends before it replaces an instance). NotifyNL answers slowly, so
 * at the signal the instance has calls in flight and more claimed tasks waiting for a slot. It must stop claiming,
 * let the calls in flight complete and commit, release the claimed tasks it did not start and exit within its grace
 * period: right after the exit no task is leased (the lease is a minute here, so a task not released would show),
 * every e-mail NotifyNL accepted is committed, no attempt counted. An instance started after it finishes everything,
 * sending nothing twice.
 */
@Tag("faults")
class GracefulShutdownTest {

    private static final long SEED = Long.getLong("nmc.faults.seed", 20_261_201L);
    private static final int NOTIFICATIONS = 80;
    private static final Duration START = Duration.ofSeconds(90);
    private static final Duration GRACE = Duration.ofSeconds(10);

    @Test
    void onSigtermItFinishesWhatRunsReleasesWhatWaitsAndExitsWithinItsGrace() {
        long began = System.nanoTime();
        try (FaultRig rig = new FaultRig("graceful-shutdown", TestDatabase.separate())) {
            NmcProcess nmc = rig.nmc("nmc", rig.parties.notifyNl.baseUrl(), """
                    engine:
                      lease: PT60S
                      parallelism: 2
                      batch-size: 20
                      shutdown-grace: %s
                    """.formatted(GRACE));
            nmc.start();
            nmc.awaitHealthy(START);
            // NotifyNL takes a second per e-mail (within the NMC's two-second read timeout).
            var slow = rig.parties
                    .notifyNl
                    .wireMock()
                    .stubFor(post(urlPathEqualTo("/v2/notifications/email"))
                            .atPriority(1)
                            .willReturn(aResponse()
                                    .withTransformers(NotifyNlSimulator.SEND_EMAIL_TRANSFORMER)
                                    .withFixedDelay(1000)));
            DvLoad load = new DvLoad(
                            SEED,
                            NOTIFICATIONS,
                            List.of(TestNmc.DV_A, TestNmc.DV_B),
                            DvLoad.MIXED,
                            0,
                            rig,
                            i -> nmc.baseUrl())
                    .start(200);
            load.awaitAccepted(START);
            FaultRig.await(
                    START,
                    "calls in flight and claimed sends waiting for a slot",
                    () -> rig.parties
                                            .notifyNl
                                            .wireMock()
                                            .findAll(postRequestedFor(urlPathEqualTo("/v2/notifications/email")))
                                            .size()
                                    >= 2
                            && rig.count("SELECT count(*) FROM taak WHERE soort = 'verzenden' AND lease_tot > now()")
                                    >= 10);
            long leasedAtSignal = rig.count("SELECT count(*) FROM taak WHERE lease_tot > now()");

            long signal = System.nanoTime();
            int exit = nmc.terminate(GRACE.plusSeconds(20));
            Duration stopped = Duration.ofNanos(System.nanoTime() - signal);

            assertThat(exit).as("the JVM's exit code after SIGTERM").isEqualTo(143);
            assertThat(stopped).as("stopped within the grace period").isLessThan(GRACE.plusSeconds(5));
            assertThat(rig.database.query("SELECT soort || ' ' || id FROM taak WHERE lease_tot > now()", null))
                    .as("no task left leased by the stopped instance")
                    .isEmpty();
            assertThat(rig.maxFailures()).as("no attempt counted").isZero();
            assertThat(rig.parties.notifyNl.sentNotifications())
                    .as("every e-mail NotifyNL accepted was committed")
                    .allSatisfy(sent -> assertThat(rig.database.query(
                                    "SELECT status FROM poging WHERE id = CAST(? AS uuid) AND notify_id IS NOT NULL",
                                    sent.reference()))
                            .as(sent.reference())
                            .hasSize(1));
            int sentBeforeStop = rig.parties.notifyNl.sentNotifications().size();
            String log = nmc.logs();

            rig.parties.notifyNl.wireMock().removeStub(slow);
            nmc.start();
            nmc.awaitHealthy(START);
            Duration drained = rig.awaitAllTerminal(load, Duration.ofMinutes(3));
            rig.verify(load, nmc.baseUrl());
            assertThat(rig.duplicateSends()).as("no e-mail sent twice").isEmpty();

            Map<String, Object> figures = new LinkedHashMap<>();
            figures.put("notifications", NOTIFICATIONS);
            figures.put("leasedAtSignal", leasedAtSignal);
            figures.put("sentBeforeStop", sentBeforeStop);
            figures.put("sigtermToExit", FaultRig.seconds(stopped));
            figures.put(
                    "stopLine",
                    log.lines()
                            .filter(line -> line.contains("NMC stopping"))
                            .findFirst()
                            .orElse("-"));
            figures.put("drainAfterRestart", FaultRig.seconds(drained));
            figures.put("duration", FaultRig.seconds(Duration.ofNanos(System.nanoTime() - began)));
            FaultRig.report("graceful-shutdown", figures);
        }
    }
}
