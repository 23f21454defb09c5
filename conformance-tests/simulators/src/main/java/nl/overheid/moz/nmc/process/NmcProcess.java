package nl.overheid.moz.nmc.process;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
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
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The NMC as an operating-system process of its own, started the way {@code scripts/run} starts it: the server
 * jar and its libraries as {@code mvn package} leaves them in {@code server/target}, {@code nl.overheid.moz.nmc.Main},
 * {@code NMC_CONFIG} naming a configuration file, and {@code -D} settings on top. A {@code kill -9} of it is a
 * real one (no shutdown hook, no finally, sockets and transactions cut where they are). Each start writes its
 * own log file, {@code <dir>/<name>-<n>.log}. The conformance suite's fault tests and the benchmarks use it.
 */
public final class NmcProcess implements AutoCloseable {

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    /** Every process started here, killed when this JVM ends however it ends (short of SIGKILL). */
    private static final Set<Process> STARTED = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime()
                .addShutdownHook(new Thread(() -> STARTED.forEach(Process::destroyForcibly), "nmc-process-stop"));
    }

    private final String name;
    private final Path dir;
    private final Path config;
    private final int port;
    private final int managementPort;
    private final List<String> jvmOptions;
    private final Map<String, String> settings;
    private final String java;
    private Process process;
    private int starts;

    private NmcProcess(Builder builder) {
        this.name = builder.name;
        this.dir = builder.dir;
        this.port = builder.port > 0 ? builder.port : freePort();
        this.config = dir.resolve(name + ".yaml");
        this.jvmOptions = List.copyOf(builder.jvmOptions);
        this.settings = new LinkedHashMap<>(builder.settings);
        this.settings.put("server.port", Integer.toString(port));
        this.managementPort = freePort();
        this.settings.put("observe.port", Integer.toString(managementPort));
        this.java = builder.java;
        try {
            Files.createDirectories(dir);
            Files.writeString(config, builder.configYaml);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A process named {@code name} (its config and logs in {@code dir}); nothing starts before {@link #start}. */
    public static Builder builder(String name, Path dir) {
        return new Builder(name, dir);
    }

    /** How a process is started. */
    public static final class Builder {
        private final String name;
        private final Path dir;
        private String configYaml = "{}\n";
        private int port;
        private String java = ProcessHandle.current().info().command().orElse("java");
        private final List<String> jvmOptions = new ArrayList<>();
        private final Map<String, String> settings = new LinkedHashMap<>();

        private Builder(String name, Path dir) {
            this.name = name;
            this.dir = dir;
        }

        /** The configuration file's text ({@code NMC_CONFIG}). */
        public Builder configYaml(String yaml) {
            this.configYaml = yaml;
            return this;
        }

        /** The port ({@code server.port}); a free one when not given. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** The {@code java} executable (default: this JVM's). */
        public Builder java(Path java) {
            this.java = java.toString();
            return this;
        }

        public Builder jvm(String... options) {
            jvmOptions.addAll(List.of(options));
            return this;
        }

        /** A configuration key on top of the file, as a system property (e.g. {@code engine.batch-size}). */
        public Builder set(String key, Object value) {
            settings.put(key, String.valueOf(value));
            return this;
        }

        public NmcProcess build() {
            return new NmcProcess(this);
        }

        /** Builds, starts and waits until it is healthy. */
        public NmcProcess startHealthy(Duration timeout) {
            NmcProcess process = build();
            process.start();
            try {
                process.awaitHealthy(timeout);
            } catch (RuntimeException | AssertionError e) {
                process.close();
                throw e;
            }
            return process;
        }
    }

    public String name() {
        return name;
    }

    public int port() {
        return port;
    }

    /** {@code http://127.0.0.1:<port>}. */
    public String baseUrl() {
        return "http://127.0.0.1:" + port;
    }

    /** Where its {@code /observe} endpoints are ({@code observe.port}, a free port). */
    public String managementUrl() {
        return "http://127.0.0.1:" + managementPort;
    }

    /** Starts the process (without waiting for it to serve; see {@link #awaitHealthy}). */
    public synchronized void start() {
        if (alive()) {
            throw new IllegalStateException(name + " runs already");
        }
        Path root = repositoryRoot();
        List<String> command = new ArrayList<>();
        command.add(java);
        command.addAll(jvmOptions);
        command.add("-Duser.timezone=Europe/Amsterdam");
        command.add("-Djava.util.logging.config.file=" + root.resolve("server/src/main/resources/logging.properties"));
        settings.forEach((key, value) -> command.add("-D" + key + "=" + value));
        command.addAll(List.of("-cp", serverClasspath(root), "nl.overheid.moz.nmc.Main"));
        Path log = log(++starts);
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(root.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().put("NMC_CONFIG", config.toString());
        try {
            Files.writeString(log, "== " + Instant.now() + " " + String.join(" ", command) + "\n");
            process = builder.start();
            STARTED.add(process);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name, e);
        }
    }

    /** Waits until {@code /observe/health} answers 200; returns how long that took. Fails when the process died. */
    public Duration awaitHealthy(Duration timeout) {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        while (true) {
            if (!alive()) {
                throw new AssertionError(
                        name + " exited with " + process.exitValue() + "; see " + log(starts) + "\n" + tail());
            }
            try {
                HttpResponse<Void> health = HTTP.send(
                        HttpRequest.newBuilder(URI.create(managementUrl() + "/observe/health"))
                                .timeout(Duration.ofSeconds(2))
                                .build(),
                        HttpResponse.BodyHandlers.discarding());
                if (health.statusCode() == 200) {
                    return Duration.ofNanos(System.nanoTime() - start);
                }
            } catch (IOException notYet) {
                // not listening yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(name + " not healthy within " + timeout + "; see " + log(starts));
            }
            sleep(Duration.ofMillis(100));
        }
    }

    /** {@code kill -9}: SIGKILL, then waits until the process is gone. */
    public synchronized void kill() {
        process.destroyForcibly();
        waitFor(Duration.ofSeconds(30));
        STARTED.remove(process);
    }

    /** SIGTERM (what a container platform sends to stop it), then waits; returns the exit code. */
    public synchronized int terminate(Duration timeout) {
        process.destroy();
        if (!waitFor(timeout)) {
            throw new AssertionError(name + " did not stop within " + timeout + " of SIGTERM; see " + log(starts));
        }
        STARTED.remove(process);
        return process.exitValue();
    }

    /** A graceful stop: SIGTERM, and SIGKILL only if it has not ended within {@code timeout}. */
    public synchronized void stop(Duration timeout) {
        if (!alive()) {
            return;
        }
        process.destroy();
        if (!waitFor(timeout)) {
            kill();
        }
        STARTED.remove(process);
    }

    private boolean waitFor(Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public synchronized boolean alive() {
        return process != null && process.isAlive();
    }

    public long pid() {
        return process.pid();
    }

    /** Writes a thread dump, virtual threads included, next to the logs, for a test that found it stuck. */
    public Path threadDump() {
        Path dump = dir.resolve(name + "-" + starts + "-threads-" + System.currentTimeMillis() + ".txt");
        try {
            Path jcmd = Path.of(java).resolveSibling("jcmd");
            new ProcessBuilder(
                            jcmd.toString(),
                            Long.toString(pid()),
                            "Thread.dump_to_file",
                            "-format=text",
                            dump.toString())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start()
                    .waitFor(30, TimeUnit.SECONDS);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return dump;
    }

    /** How often it was started. */
    public int starts() {
        return starts;
    }

    /** The log of the {@code n}-th start (1-based). */
    public Path log(int n) {
        return dir.resolve(name + "-" + n + ".log");
    }

    /** The text of every start's log, oldest first. */
    public String logs() {
        StringBuilder all = new StringBuilder();
        for (int n = 1; n <= starts; n++) {
            try {
                all.append(Files.readString(log(n)));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return all.toString();
    }

    /** The last lines of the latest start's log. */
    public String tail() {
        try {
            List<String> lines = Files.readAllLines(log(starts));
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException e) {
            return "";
        }
    }

    /** Kills it if it still runs: a test's cleanup, where a graceful stop would only cost time. */
    @Override
    public synchronized void close() {
        if (alive()) {
            kill();
        }
    }

    /** The repository's root, found from the working directory upwards (the directory holding {@code api-spec/}). */
    public static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null
                && !(Files.isDirectory(dir.resolve("api-spec")) && Files.isDirectory(dir.resolve("server")))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException(
                    "not inside the NMC repository: " + Path.of("").toAbsolutePath());
        }
        return dir;
    }

    /** The runnable server as {@code mvn package} leaves it (as {@code scripts/run} uses it). */
    private static String serverClasspath(Path root) {
        Path target = root.resolve("server/target");
        try (Stream<Path> files = Files.list(target)) {
            Path jar = files.filter(file -> file.getFileName().toString().matches("nmc-server-[^-]+(-SNAPSHOT)?\\.jar"))
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException(
                            "no server jar in " + target + ": run 'mvn install -DskipTests' first"));
            if (!Files.isDirectory(target.resolve("libs"))) {
                throw new IllegalStateException(
                        "no " + target.resolve("libs") + ": run 'mvn install -DskipTests' first");
            }
            return jar + File.pathSeparator + target.resolve("libs") + File.separator + "*";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A port nothing listens on now. */
    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("no free port", e);
        }
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
