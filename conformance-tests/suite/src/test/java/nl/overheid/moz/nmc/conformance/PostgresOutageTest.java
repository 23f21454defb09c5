package nl.overheid.moz.nmc.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import nl.overheid.moz.nmc.process.NmcProcess;
import nl.overheid.moz.nmc.testing.TestDatabase;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL stopped hard ({@code pg_ctl stop -m immediate}: no checkpoint, every connection cut, crash recovery at
 * the next start) while DVs submit and the NMC sends, and started again after a few seconds. The NMC process is
 * not restarted: its pool reconnects, work cut mid-transaction is not counted against anyone and is retried, a
 * DV's retry of a request that got no answer is taken once. Nothing is lost and nothing is sent twice. The cluster
 * is one of the test's own ({@code scripts/pg crash} and {@code resume}), not the suite's.
 */
@Tag("faults")
class PostgresOutageTest {

    private static final long SEED = Long.getLong("nmc.faults.seed", 20_261_201L);
    private static final int NOTIFICATIONS = 160;
    private static final double PER_SECOND = 16;
    private static final Duration START = Duration.ofSeconds(90);

    @Test
    void theNmcRecoversFromADatabaseCrashWithoutARestartAndLosesNothing() throws IOException {
        long began = System.nanoTime();
        Random random = new Random(SEED);
        try (Cluster cluster = Cluster.start()) {
            TestDatabase database = TestDatabase.separateIn(cluster.url(), cluster.user(), cluster.password());
            // scripts/pg trades durability for speed (synchronous_commit off): an immediate stop would then lose the
            // last commits the NMC was told about. This database gets PostgreSQL's durable default back, as in
            // production; fsync may stay off, since the machine itself does not crash.
            database.execute(
                    "ALTER DATABASE " + database.url().substring(database.url().lastIndexOf('/') + 1)
                            + " SET synchronous_commit = on",
                    null);
            try (FaultRig rig = new FaultRig("postgres-outage", database)) {
                NmcProcess nmc = rig.nmc("nmc");
                nmc.start();
                nmc.awaitHealthy(START);
                long pid = nmc.pid();
                DvLoad load = new DvLoad(
                                SEED,
                                NOTIFICATIONS,
                                List.of(TestNmc.DV_A, TestNmc.DV_B),
                                DvLoad.MIXED,
                                0.1,
                                rig,
                                i -> nmc.baseUrl())
                        .start(PER_SECOND);

                long threshold = Math.round(NOTIFICATIONS * (0.3 + 0.3 * random.nextDouble()));
                FaultRig.await(
                        START, "share " + threshold + " of the load accepted", () -> load.acceptedSoFar() >= threshold);
                Duration outage = Duration.ofMillis(2000 + random.nextInt(2000));
                int sendsBefore = rig.parties.notifyNl.sentNotifications().size();
                Instant crashed = Instant.now();
                cluster.crash();
                FaultRig.pause(outage);
                long acceptedAtResume = load.acceptedSoFar();
                int sendsAtResume = rig.parties.notifyNl.sentNotifications().size();
                cluster.resume();
                Instant resumed = Instant.now();
                Duration toFirstAcceptance = FaultRig.await(
                        Duration.ofSeconds(60),
                        "a 202 after the database is back",
                        () -> load.acceptedSoFar() > acceptedAtResume);
                Duration toFirstSend = FaultRig.await(
                        Duration.ofSeconds(60),
                        "an e-mail sent after the database is back",
                        () -> rig.parties.notifyNl.sentNotifications().size() > sendsAtResume);

                load.awaitAccepted(START);
                Duration drained = rig.awaitAllTerminal(load, Duration.ofMinutes(3));
                assertThat(nmc.alive())
                        .as("the same NMC process, never restarted")
                        .isTrue();
                assertThat(nmc.pid()).isEqualTo(pid);
                assertThat(nmc.starts()).isEqualTo(1);
                rig.verify(load, nmc.baseUrl());
                var duplicates = rig.duplicateSends();
                rig.assertEveryDuplicateAllowed(duplicates, List.of(crashed));
                assertThat(nmc.logs())
                        .as("no NMC-internal failure was counted")
                        .doesNotContain("failed inside the NMC");

                Map<String, Object> figures = new LinkedHashMap<>();
                figures.put("seed", SEED);
                figures.put("notifications", NOTIFICATIONS);
                figures.put("mix", FaultRig.mix(load));
                figures.put("outage", FaultRig.seconds(outage));
                figures.put("sendsBeforeCrash", sendsBefore);
                figures.put("answers5xxOr429", load.retriedAnswers());
                figures.put("resumeToFirst202", FaultRig.seconds(toFirstAcceptance));
                figures.put("resumeToFirstSend", FaultRig.seconds(toFirstSend));
                figures.put("crashToResume", FaultRig.seconds(Duration.between(crashed, resumed)));
                figures.put("duplicateSends", duplicates.size());
                figures.put("drain", FaultRig.seconds(drained));
                figures.put("duration", FaultRig.seconds(Duration.ofNanos(System.nanoTime() - began)));
                FaultRig.report("postgres-outage", figures);
            }
        }
    }

    /** A PostgreSQL cluster of the test's own, through {@code scripts/pg}. */
    private record Cluster(Path dir, String url, String user, String password) implements AutoCloseable {

        static Cluster start() throws IOException {
            Path dir = Files.createTempDirectory("nmc-fault-pg");
            Map<String, String> values = new HashMap<>();
            for (String line : pg("start", dir).split("\n")) {
                if (line.contains("=")) {
                    values.put(line.substring(0, line.indexOf('=')), line.substring(line.indexOf('=') + 1));
                }
            }
            return new Cluster(dir, values.get("NMC_DB_URL"), values.get("NMC_DB_USER"), values.get("NMC_DB_PASSWORD"));
        }

        /** {@code pg_ctl stop -m immediate}. */
        void crash() {
            pg("crash", dir);
        }

        void resume() {
            pg("resume", dir);
        }

        @Override
        public void close() {
            pg("stop", dir);
        }

        private static String pg(String command, Path dir) {
            try {
                Process process = new ProcessBuilder(
                                TestDatabase.repositoryRoot()
                                        .resolve("scripts/pg")
                                        .toString(),
                                command,
                                dir.toString())
                        .redirectError(ProcessBuilder.Redirect.INHERIT)
                        .start();
                String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                if (process.waitFor() != 0) {
                    throw new IllegalStateException("scripts/pg " + command + " failed");
                }
                return out;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }
}
