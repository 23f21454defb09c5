package nl.overheid.moz.nmc.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import nl.overheid.moz.nmc.process.NmcProcess;
import nl.overheid.moz.nmc.testing.Http;
import nl.overheid.moz.nmc.testing.TcpProxy;
import nl.overheid.moz.nmc.testing.TestDatabase;
import nl.overheid.moz.nmc.testing.TestLdv;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The LDV store stopped mid-run (every connection to it cut, new ones refused) while two DVs submit and the NMC sends,
 * and back after a few seconds; the NMC process runs on, its own database up. While the store is away nothing is
 * sent, nothing is counted against a task, the write failures are counted, readiness stays up and acceptance goes
 * on; once it is back everything completes by itself, every call after its stored record, nothing sent twice. The
 * NMC reaches the store through a TCP forwarder of this test ({@link TcpProxy}), which is how the store "stops": the
 * store's database shares its cluster with the NMC's.
 */
@Tag("faults")
class LdvOutageTest {

    private static final long SEED = Long.getLong("nmc.faults.seed", 20_261_201L);
    private static final int NOTIFICATIONS = 120;
    private static final double PER_SECOND = 16;
    private static final Duration START = Duration.ofSeconds(90);
    /** Calls whose record was stored just before the cut may still be on their way. */
    private static final Duration IN_FLIGHT = Duration.ofSeconds(2);

    @Test
    void withTheStoreStoppedNothingIsSentOrCountedAndEverythingCompletesAfterItReturns() {
        long began = System.nanoTime();
        Random random = new Random(SEED);
        TestLdv ldv = TestLdv.get();
        try (FaultRig rig = new FaultRig("ldv-outage", TestDatabase.separate());
                TcpProxy proxy = new TcpProxy(
                        URI.create(ldv.url().substring("jdbc:".length())).getPort())) {
            NmcProcess nmc = rig.nmc(
                    "nmc",
                    rig.parties.notifyNl.baseUrl(),
                    "ldv:\n  postgresql:\n    url: \"" + ldv.url().replaceFirst(":\\d+/", ":" + proxy.port() + "/")
                            + "\"\n");
            nmc.start();
            nmc.awaitHealthy(START);
            ldv.stampInserts();
            Http http = new Http(nmc.baseUrl(), nmc.managementUrl());
            DvLoad load = new DvLoad(
                            SEED,
                            NOTIFICATIONS,
                            List.of(TestNmc.DV_A, TestNmc.DV_B),
                            DvLoad.MIXED,
                            0.1,
                            rig,
                            i -> nmc.baseUrl())
                    .start(PER_SECOND);

            long threshold = Math.round(NOTIFICATIONS * (0.25 + 0.2 * random.nextDouble()));
            FaultRig.await(
                    START, "share " + threshold + " of the load accepted", () -> load.acceptedSoFar() >= threshold);
            double failuresBefore = sum(http, "nmc_ldv_write_failures_total");
            Instant stopped = Instant.now();
            proxy.cut();
            FaultRig.pause(IN_FLIGHT);
            int callsAtStop = calls(rig);
            long acceptedAtStop = load.acceptedSoFar();
            Duration outage = Duration.ofMillis(4000 + random.nextInt(2000));
            FaultRig.pause(outage);

            assertThat(calls(rig))
                    .as("no call to NotifyNL while the store is away")
                    .isEqualTo(callsAtStop);
            assertThat(rig.maxFailures()).as("no attempt counted").isZero();
            assertThat(sum(http, "nmc_ldv_write_failures_total"))
                    .as("the write failures counted")
                    .isGreaterThan(failuresBefore);
            assertThat(http.get("/observe/health/ready", null).status())
                    .as("ready: the store is needed to send, not to accept")
                    .isEqualTo(200);
            assertThat(load.acceptedSoFar()).as("acceptance goes on").isGreaterThan(acceptedAtStop);

            proxy.restore();
            Instant back = Instant.now();
            Duration toFirstSend = FaultRig.await(
                    Duration.ofSeconds(60), "an e-mail sent after the store is back", () -> calls(rig) > callsAtStop);
            load.awaitAccepted(START);
            Duration drained = rig.awaitAllTerminal(load, Duration.ofMinutes(3));
            rig.verify(load, nmc.baseUrl());
            var duplicates = rig.duplicateSends();
            assertThat(duplicates).as("nothing sent twice").isEmpty();
            LdvRecords.Checked checked = LdvRecords.assertEveryCallRecordedFirst(
                    rig.parties, load.submissions().stream().map(s -> s.dvRef).toList());
            assertThat(nmc.logs()).as("no NMC-internal failure was counted").doesNotContain("failed inside the NMC");
            assertThat(nmc.starts()).as("the same NMC process throughout").isEqualTo(1);

            Map<String, Object> figures = new LinkedHashMap<>();
            figures.put("seed", SEED);
            figures.put("notifications", NOTIFICATIONS);
            figures.put("mix", FaultRig.mix(load));
            figures.put("outage", FaultRig.seconds(Duration.between(stopped, back)));
            figures.put("callsDuringOutage", 0);
            figures.put("writeFailures", (long) (sum(http, "nmc_ldv_write_failures_total") - failuresBefore));
            figures.put("backToFirstSend", FaultRig.seconds(toFirstSend));
            figures.put("callsChecked", checked.calls());
            figures.put("failedCallsWithErrorRecord", checked.failedCalls());
            figures.put("drain", FaultRig.seconds(drained));
            figures.put("duration", FaultRig.seconds(Duration.ofNanos(System.nanoTime() - began)));
            FaultRig.report("ldv-outage", figures);
        }
    }

    private static int calls(FaultRig rig) {
        return rig.parties.notifyNl.wireMock().getAllServeEvents().size();
    }

    /** The sum over a metric's series (0 when it has none). */
    private static double sum(Http http, String name) {
        Matcher line = Pattern.compile("(?m)^" + Pattern.quote(name) + "(\\{[^}]*})?\\s+(\\S+)$")
                .matcher(http.get("/observe/metrics", null).body());
        double total = 0;
        while (line.find()) {
            total += Double.parseDouble(line.group(2));
        }
        return total;
    }
}
