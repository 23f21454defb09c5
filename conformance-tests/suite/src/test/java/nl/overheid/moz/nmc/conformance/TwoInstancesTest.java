package nl.overheid.moz.nmc.conformance;

import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import nl.overheid.moz.nmc.process.NmcProcess;
import nl.overheid.moz.nmc.testing.TestDatabase;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Two NMC instances, two processes on one database, under the load of two DVs of unequal size, each DV sending its
 * requests to both. They share the work through the task table alone (claims with {@code SKIP LOCKED}, leases,
 * epochs): no e-mail goes to NotifyNL twice (the simulator counts per reference), both instances send, both serve
 * both DVs, the small DV is not starved behind the large one, and everything reaches its final status. The
 * instances call NotifyNL under different host names, so the simulator's journal tells who sent what.
 */
@Tag("faults")
class TwoInstancesTest {

    private static final long SEED = Long.getLong("nmc.faults.seed", 20_261_201L);
    private static final int NOTIFICATIONS = 200;
    private static final double PER_SECOND = 20;
    private static final Duration START = Duration.ofSeconds(90);

    @Test
    void twoInstancesShareTheWorkWithoutSendingTwice() {
        long began = System.nanoTime();
        try (FaultRig rig = new FaultRig("two-instances", TestDatabase.separate())) {
            String viaLocalhost = rig.parties.notifyNl.baseUrl(); // http://localhost:<port>
            String viaLoopback = "http://127.0.0.1:" + rig.parties.notifyNl.port();
            NmcProcess first = rig.nmc("nmc-a", viaLocalhost, "{}");
            NmcProcess second = rig.nmc("nmc-b", viaLoopback, "{}");
            first.start();
            second.start();
            first.awaitHealthy(START);
            second.awaitHealthy(START);
            List<NmcProcess> instances = List.of(first, second);

            // DV A submits four times as much as DV B; request n goes to instance n mod 2, retries included.
            DvLoad load = new DvLoad(
                            SEED,
                            NOTIFICATIONS,
                            List.of(TestNmc.DV_A, TestNmc.DV_A, TestNmc.DV_B, TestNmc.DV_A, TestNmc.DV_A),
                            DvLoad.MIXED,
                            0.1,
                            rig,
                            i -> instances.get(i % 2).baseUrl())
                    .start(PER_SECOND);
            load.awaitAccepted(START);
            Duration drained = rig.awaitAllTerminal(load, Duration.ofMinutes(3));
            rig.verify(load, second.baseUrl());
            assertThat(rig.duplicateSends())
                    .as("no e-mail sent twice: no instance died, so none is allowed")
                    .isEmpty();

            // Who sent what: the Host header of each send, the DV of its attempt.
            Map<String, String> dvOfPoging = new HashMap<>();
            for (String line : rig.database.query("""
                    SELECT p.id || ' ' || d.oin FROM poging p JOIN notificatie n ON n.id = p.notificatie
                      JOIN dienstverlener d ON d.id = n.dv_id
                    """, null)) {
                dvOfPoging.put(line.split(" ")[0], line.split(" ")[1]);
            }
            Map<String, Map<String, Integer>> sends = new TreeMap<>();
            List<LoggedRequest> posts = rig.parties
                    .notifyNl
                    .wireMock()
                    .findAll(postRequestedFor(urlPathEqualTo("/v2/notifications/email")));
            for (LoggedRequest post : posts) {
                String instance = post.getAbsoluteUrl().startsWith("http://localhost") ? first.name() : second.name();
                String dv = dvOfPoging.getOrDefault(referenceOf(post), "?");
                sends.computeIfAbsent(instance, x -> new TreeMap<>()).merge(dv, 1, Integer::sum);
            }
            long pogingen = rig.count("SELECT count(*) FROM poging");
            assertThat(posts).as("one send per attempt").hasSize((int) pogingen);
            for (NmcProcess instance : instances) {
                Map<String, Integer> byDv = sends.getOrDefault(instance.name(), Map.of());
                assertThat(byDv.values().stream().mapToInt(Integer::intValue).sum())
                        .as(instance.name() + " did at least a tenth of the sends")
                        .isGreaterThanOrEqualTo((int) (pogingen / 10));
                assertThat(byDv.keySet())
                        .as(instance.name() + " served both DVs")
                        .containsExactlyInAnyOrder(TestNmc.DV_A, TestNmc.DV_B);
            }
            Map<String, double[]> waits = claimWaits(rig);
            assertThat(waits.get(TestNmc.DV_B)[0])
                    .as("the small DV waits for its first claim no longer than the large "
                            + "one (on average, give or take two seconds)")
                    .isLessThanOrEqualTo(waits.get(TestNmc.DV_A)[0] + 2);

            Map<String, Object> figures = new LinkedHashMap<>();
            figures.put("seed", SEED);
            figures.put("notifications", NOTIFICATIONS);
            figures.put("mix", FaultRig.mix(load));
            figures.put("sendsByInstanceAndDv", sends);
            Map<String, String> shown = new TreeMap<>();
            waits.forEach((dv, w) -> shown.put(dv, String.format(java.util.Locale.ROOT, "%.2fs/%.2fs", w[0], w[1])));
            figures.put("acceptedToFirstStart(avg/max)", shown);
            figures.put("duplicateSends", 0);
            figures.put("drain", FaultRig.seconds(drained));
            figures.put("duration", FaultRig.seconds(Duration.ofNanos(System.nanoTime() - began)));
            FaultRig.report("two-instances", figures);
        }
    }

    private static String referenceOf(LoggedRequest post) {
        String body = post.getBodyAsString();
        int at = body.indexOf("\"reference\"");
        int start = body.indexOf('"', body.indexOf(':', at) + 1) + 1;
        return body.substring(start, body.indexOf('"', start));
    }

    /**
     * Per DV: seconds from the acceptance to the start of its first send (the in-verzending event, written when the
     * claimed task starts), average and maximum.
     */
    private static Map<String, double[]> claimWaits(FaultRig rig) {
        Map<String, double[]> waits = new TreeMap<>();
        for (String line : rig.database.query("""
                SELECT d.oin || ' ' || avg(extract(epoch FROM c.tijdstip - a.tijdstip))
                       || ' ' || max(extract(epoch FROM c.tijdstip - a.tijdstip))
                  FROM event a JOIN event c ON c.notificatie = a.notificatie AND c.volgnummer = 2
                  JOIN dienstverlener d ON d.id = a.dv_id
                 WHERE a.volgnummer = 1
                 GROUP BY d.oin
                """, null)) {
            String[] f = line.split(" ");
            waits.put(f[0], new double[] {Double.parseDouble(f[1]), Double.parseDouble(f[2])});
        }
        return waits;
    }
}
