package nl.overheid.moz.nmc.bench;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import nl.overheid.moz.nmc.simulator.InstantParties;

/**
 * The NMC as a server process, started the way {@code scripts/run} starts it (the server jar and its libs,
 * {@code nl.overheid.moz.nmc.Main}, {@code NMC_CONFIG}), with the benchmark's configuration, on a database
 * of its own, optionally with the instant parties (NotifyNL and the LDV) in this JVM. Its output goes to
 * {@code target/bench/logs/<label>.log} (one file per label, rewritten at each start).
 */
public final class NmcProcess implements AutoCloseable {

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

    /** NMCs still running, stopped when the harness exits early (an interrupt, a kill), so none is left behind. */
    private static final java.util.Set<Process> RUNNING = java.util.concurrent.ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(Process::destroyForcibly),
                "bench-stop-nmc"));
    }

    private final Process process;
    private final int port;
    private final InstantParties parties;
    private final Path log;

    private NmcProcess(Process process, int port, InstantParties parties, Path log) {
        this.process = process;
        this.port = port;
        this.parties = parties;
        this.log = log;
    }

    /** Starts the NMC and waits until its health check answers 200. */
    public static NmcProcess start(BenchContext context, String label, Options options) {
        int port = freePort();
        InstantParties parties = options.engine ? InstantParties.start(context.notifyApiKey(),
                URI.create("http://127.0.0.1:" + port + "/api/nmc/v1/notifynl-callback"), context.callbackToken(),
                options.callbackDelay) : null;
        Path log = context.outDirectory().resolve("logs").resolve(label + ".log");
        try {
            Files.createDirectories(log.getParent());
            List<String> command = new ArrayList<>();
            command.add(context.java().toString());
            command.addAll(options.jvmOptions);
            Map<String, String> settings = new LinkedHashMap<>();
            settings.put("db.url", context.postgres().jdbcUrl(options.database));
            settings.put("db.user", context.postgres().user());
            settings.put("db.password", context.postgres().password());
            settings.put("server.port", Integer.toString(port));
            settings.put("auth.jwks-uri", context.repository().resolve(".dev/iam/jwks.json").toString());
            settings.put("engine.autostart", Boolean.toString(options.engine));
            if (parties != null) {
                settings.put("notifynl.base-url", parties.baseUrl());
                settings.put("ldv.base-url", parties.baseUrl() + InstantParties.LDV_BASE_PATH);
            }
            settings.putAll(options.settings);
            settings.forEach((key, value) -> command.add("-D" + key + "=" + value));
            command.add("-Djava.util.logging.config.file="
                    + context.repository().resolve("server/src/main/resources/logging.properties"));
            command.add("-cp");
            command.add(context.serverClassPath());
            command.add("nl.overheid.moz.nmc.Main");
            ProcessBuilder builder = new ProcessBuilder(command).directory(context.repository().toFile())
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
            builder.environment().put("NMC_CONFIG", context.nmcConfig().toString());
            Files.writeString(log, "== " + Instant.now() + " " + String.join(" ", command) + "\n");
            Process process = builder.start();
            RUNNING.add(process);
            NmcProcess nmc = new NmcProcess(process, port, parties, log);
            nmc.awaitHealthy(Duration.ofMinutes(3));
            return nmc;
        } catch (IOException | RuntimeException e) {
            if (parties != null) {
                parties.close();
            }
            throw e instanceof RuntimeException runtime ? runtime
                    : new IllegalStateException("cannot start the NMC (" + label + ")", e);
        }
    }

    private void awaitHealthy(Duration timeout) {
        Instant deadline = Instant.now().plus(timeout);
        try (HttpClient client = HttpClient.newHttpClient()) {
            HttpRequest health = HttpRequest.newBuilder(URI.create(baseUrl() + "/observe/health"))
                    .timeout(Duration.ofSeconds(5)).build();
            while (Instant.now().isBefore(deadline)) {
                if (!process.isAlive()) {
                    throw new IllegalStateException("the NMC exited with " + process.exitValue() + " before it was"
                            + " healthy; see " + log + "\n" + tail());
                }
                try {
                    if (client.send(health, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                        return;
                    }
                } catch (IOException notYet) {
                    // still starting
                }
                Thread.sleep(200);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        close();
        throw new IllegalStateException("the NMC was not healthy within " + timeout + "; see " + log);
    }

    /** {@code http://127.0.0.1:<port>}. */
    public String baseUrl() {
        return "http://127.0.0.1:" + port;
    }

    /** The instant parties of this run (null without the engine). */
    public InstantParties parties() {
        return parties;
    }

    public long pid() {
        return process.pid();
    }

    public boolean alive() {
        return process.isAlive();
    }

    public Path log() {
        return log;
    }

    /** The last lines of the log. */
    public String tail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException e) {
            return "";
        }
    }

    /** Stops the NMC (SIGTERM, its shutdown hook closes the server and workers), then the parties. */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        RUNNING.remove(process);
        if (parties != null) {
            parties.close();
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("no free port", e);
        }
    }
}
