package nl.overheid.moz.nmc.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import nl.overheid.moz.nmc.process.NmcProcess;
import nl.overheid.moz.nmc.simulator.NotifyNlSimulator;
import nl.overheid.moz.nmc.testing.TestDatabase;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The NMC process killed with SIGKILL at seeded random moments while two DVs submit and NotifyNL answers, and
 * started again each time. Whatever was cut — a request, a claim, a call to NotifyNL, its commit, a receipt — every
 * notification that got a 202 reaches the status its recipient implies, a DV's retry of the same request creates
 * nothing new, the feed holds volgnummers 1..n once each, and at no moment is a live notification without work
 * that will move it. An e-mail NotifyNL accepted twice under one reference is reported and must span a kill (the
 * only way a second call is allowed: the first instance's lease expired with it). Reproduce a run with
 * {@code -Dnmc.faults.seed=N}.
 */
@Tag("faults")
class CrashRecoveryTest {

    private static final long SEED = Long.getLong("nmc.faults.seed", 20_261_201L);
    private static final int NOTIFICATIONS = 200;
    private static final double PER_SECOND = 16;
    private static final Duration START = Duration.ofSeconds(90);

    @Test
    void killedAtRandomUnderLoadItLosesNothingAndSendsNothingTwice() {
        long began = System.nanoTime();
        Random random = new Random(SEED);
        try (FaultRig rig = new FaultRig("crash", TestDatabase.separate())) {
            NmcProcess nmc = rig.nmc("nmc");
            nmc.start();
            nmc.awaitHealthy(START);
            DvLoad load = new DvLoad(
                            SEED,
                            NOTIFICATIONS,
                            List.of(TestNmc.DV_A, TestNmc.DV_B),
                            DvLoad.MIXED,
                            0.1,
                            rig,
                            i -> nmc.baseUrl())
                    .start(PER_SECOND);

            // Three kills while the DVs submit, at a seeded share of the load plus a seeded moment within a second,
            // and one after the last 202, while sends, receipts and resends are still on their way.
            List<Instant> kills = new ArrayList<>();
            List<Duration> recoveries = new ArrayList<>();
            List<Long> strandedAfterRestart = new ArrayList<>();
            for (int k = 0; k < 4; k++) {
                if (k < 3) {
                    long threshold = Math.round(NOTIFICATIONS * (0.15 + 0.25 * k + 0.15 * random.nextDouble()));
                    FaultRig.await(
                            START,
                            "share " + threshold + " of the load accepted",
                            () -> load.acceptedSoFar() >= threshold);
                } else {
                    load.awaitAccepted(START);
                }
                FaultRig.pause(Duration.ofMillis(random.nextInt(1000)));
                kills.add(Instant.now());
                nmc.kill();
                strandedAfterRestart.add(rig.stranded());
                nmc.start();
                nmc.awaitHealthy(START);
                recoveries.add(Duration.between(kills.getLast(), Instant.now()));
            }
            assertThat(strandedAfterRestart)
                    .as("live notifications without work right after each kill")
                    .containsOnly(0L);

            Duration drained = rig.awaitAllTerminal(load, Duration.ofMinutes(3));
            rig.verify(load, nmc.baseUrl());

            Map<String, List<NotifyNlSimulator.SentNotification>> duplicates = rig.duplicateSends();
            rig.assertEveryDuplicateAllowed(duplicates, kills);
            assertThat(nmc.logs()).as("no NMC-internal failure was counted").doesNotContain("failed inside the NMC");

            Map<String, Object> figures = new LinkedHashMap<>();
            figures.put("seed", SEED);
            figures.put("notifications", NOTIFICATIONS);
            figures.put("mix", FaultRig.mix(load));
            figures.put("requests", load.requests());
            figures.put("kills", kills.size());
            figures.put(
                    "restartToHealthy",
                    recoveries.stream().map(FaultRig::seconds).toList());
            figures.put("duplicateSends", duplicates.size());
            figures.put("controlDutyRepairs", occurrences(nmc.logs(), "control duty planned"));
            figures.put("drainAfterLastKill", FaultRig.seconds(drained));
            figures.put("duration", FaultRig.seconds(Duration.ofNanos(System.nanoTime() - began)));
            FaultRig.report("crash", figures);
        }
    }

    static int occurrences(String text, String what) {
        int count = 0;
        for (int at = text.indexOf(what); at >= 0; at = text.indexOf(what, at + 1)) {
            count++;
        }
        return count;
    }
}
