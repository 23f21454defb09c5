package nl.overheid.moz.nmc.bench;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import nl.overheid.moz.nmc.process.NmcProcess;
import nl.overheid.moz.nmc.simulator.InstantParties;

/**
 * The NMC of one benchmark run: an {@link NmcProcess} with the benchmark's configuration, on a database of its
 * own, its processing log in a table of its own ({@link #ldvTable}) of the cluster's database {@code ldv},
 * optionally with the instant NotifyNL in this JVM. Its output goes to {@code target/bench/logs/<label>-<n>.log}.
 */
public final class BenchNmc implements AutoCloseable {

    /** How a run starts the NMC. */
    public static final class Options {
        private final String database;
        private boolean engine;
        private Duration callbackDelay;
        private final Map<String, String> settings = new LinkedHashMap<>();
        private final List<String> jvmOptions = new ArrayList<>();

        private Options(String database) {
            this.database = database;
        }

        /** The NMC on {@code database}, without workers and duties (acceptance only). */
        public static Options on(String database) {
            return new Options(database);
        }

        /** With its workers and duties, and the instant parties answering its calls. */
        public Options engine(Duration receiptDelay) {
            this.engine = true;
            this.callbackDelay = receiptDelay;
            return this;
        }

        /** A configuration key, e.g. {@code notifynl.services.standaard.per-minute}. */
        public Options set(String key, Object value) {
            settings.put(key, String.valueOf(value));
            return this;
        }

        public Options jvm(String... options) {
            jvmOptions.addAll(List.of(options));
            return this;
        }
    }

    private final NmcProcess process;
    private final InstantParties parties;

    private BenchNmc(NmcProcess process, InstantParties parties) {
        this.process = process;
        this.parties = parties;
    }

    /** Starts the NMC and waits until its health check answers 200. */
    public static BenchNmc start(BenchContext context, String label, Options options) {
        int port = NmcProcess.freePort();
        InstantParties parties = options.engine
                ? InstantParties.start(
                        context.notifyApiKey(),
                        URI.create("http://127.0.0.1:" + port + "/api/nmc/v1/notifynl-callback"),
                        context.callbackToken(),
                        options.callbackDelay)
                : null;
        try {
            NmcProcess.Builder builder = NmcProcess.builder(
                            label, context.outDirectory().resolve("logs"))
                    .java(context.java())
                    .jvm(options.jvmOptions.toArray(String[]::new))
                    // e.g. -Dbench.nmc.jvm=-XX:StartFlightRecording=filename=target/bench/nmc.jfr,settings=profile
                    // in BENCH_OPTS: a profile of every NMC the run starts
                    .jvm(
                            System.getProperty("bench.nmc.jvm", "").isBlank()
                                    ? new String[0]
                                    : System.getProperty("bench.nmc.jvm").trim().split("\\s+"))
                    .port(port)
                    .configYaml(Files.readString(context.nmcConfig()))
                    .set("db.url", context.postgres().jdbcUrl(options.database))
                    .set("db.user", context.postgres().user())
                    .set("db.password", context.postgres().password())
                    .set("auth.jwks-uri", context.repository().resolve(".dev/iam/jwks.json"))
                    .set("ldv.postgresql.url", context.ldvUrl())
                    .set("ldv.postgresql.user", context.ldvUser())
                    .set("ldv.postgresql.password", context.ldvPassword())
                    .set("ldv.postgresql.table", ldvTable(label))
                    .set("engine.enabled", options.engine);
            if (parties != null) {
                builder.set("notifynl.base-url", parties.baseUrl());
            }
            options.settings.forEach(builder::set);
            return new BenchNmc(builder.startHealthy(Duration.ofMinutes(3)), parties);
        } catch (IOException | RuntimeException | AssertionError e) {
            if (parties != null) {
                parties.close();
            }
            throw e instanceof RuntimeException runtime
                    ? runtime
                    : new IllegalStateException("cannot start the NMC (" + label + ")", e);
        }
    }

    /** The table of the {@code ldv} database the run labelled {@code label} writes its processing log to. */
    public static String ldvTable(String label) {
        return "spans_" + label.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
    }

    /** The NMC's metrics now (Prometheus text of {@code /observe/metrics}). */
    public String metrics() {
        try {
            return java.net.http.HttpClient.newHttpClient()
                    .send(
                            // on the management port, apart from the API's
                            java.net.http.HttpRequest.newBuilder(
                                            URI.create(process.managementUrl() + "/observe/metrics"))
                                    .timeout(Duration.ofSeconds(10))
                                    .build(),
                            java.net.http.HttpResponse.BodyHandlers.ofString())
                    .body();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** {@code http://127.0.0.1:<port>}. */
    public String baseUrl() {
        return process.baseUrl();
    }

    /** The instant parties of this run (null without the engine). */
    public InstantParties parties() {
        return parties;
    }

    public long pid() {
        return process.pid();
    }

    public boolean alive() {
        return process.alive();
    }

    /** The last lines of the log. */
    public String tail() {
        return process.tail();
    }

    /** Stops the NMC (SIGTERM: its shutdown hook drains the workers and closes the server), then the parties. */
    @Override
    public void close() {
        process.stop(Duration.ofSeconds(30));
        if (parties != null) {
            parties.close();
        }
    }
}
