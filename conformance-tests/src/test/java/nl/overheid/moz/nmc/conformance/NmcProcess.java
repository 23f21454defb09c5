package nl.overheid.moz.nmc.conformance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import nl.overheid.moz.nmc.testing.TestDatabase;

/**
 * The NMC as an operating-system process of its own, started the way {@code scripts/run} starts it (the server
 * jar and its libraries, {@code nl.overheid.moz.nmc.Main}, {@code NMC_CONFIG} naming a file), so that a
 * {@code kill -9} is a real one: no shutdown hook, no finally, sockets and transactions cut where they are. Each
 * start writes its own log file next to the configuration.
 */
final class NmcProcess implements AutoCloseable {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    /** Every process started here, killed when the test JVM ends however it ends (short of SIGKILL). */
    private static final java.util.Set<Process> STARTED = java.util.concurrent.ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> STARTED.forEach(Process::destroyForcibly)));
    }

    private final String name;
    private final Path dir;
    private final Path config;
    private final int port;
    private Process process;
    private int starts;

    /** {@code yaml}: the complete configuration (see {@link FaultRig#configYaml}); {@code port} its server.port. */
    NmcProcess(String name, Path dir, int port, String yaml) {
        this.name = name;
        this.dir = dir;
        this.port = port;
        this.config = dir.resolve(name + ".yaml");
        try {
            Files.createDirectories(dir);
            Files.writeString(config, yaml);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    String name() {
        return name;
    }

    int port() {
        return port;
    }

    String baseUrl() {
        return "http://127.0.0.1:" + port;
    }

    /** Starts the process (without waiting for it to serve; see {@link #awaitHealthy}). */
    synchronized void start() {
        if (alive()) {
            throw new IllegalStateException(name + " runs already");
        }
        Path root = TestDatabase.repositoryRoot();
        List<String> command = new ArrayList<>(List.of(
                ProcessHandle.current().info().command().orElse("java"),
                // Small and quick to start on a shared 2-core machine; C1 only is plenty for a test's load.
                "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Duser.timezone=Europe/Amsterdam",
                "-Djava.util.logging.config.file=" + root.resolve("server/src/main/resources/logging.properties"),
                "-cp", serverClasspath(root), "nl.overheid.moz.nmc.Main"));
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log(++starts).toFile());
        builder.environment().put("NMC_CONFIG", config.toString());
        try {
            process = builder.start();
            STARTED.add(process);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name, e);
        }
    }

    /** Waits until {@code /observe/health} answers 200; returns how long that took. Fails when the process died. */
    Duration awaitHealthy(Duration timeout) {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        while (true) {
            if (!alive()) {
                throw new AssertionError(name + " exited with " + process.exitValue() + "; see " + log(starts));
            }
            try {
                HttpResponse<Void> health = HTTP.send(HttpRequest.newBuilder(URI.create(baseUrl() + "/observe/health"))
                        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding());
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
            FaultRig.pause(Duration.ofMillis(100));
        }
    }

    /** {@code kill -9}: SIGKILL, then waits until the process is gone. */
    synchronized void kill() {
        process.destroyForcibly();
        waitFor(Duration.ofSeconds(30));
    }

    /** SIGTERM (what a container platform sends to stop it), then waits; returns the exit code. */
    synchronized int terminate(Duration timeout) {
        process.destroy();
        if (!waitFor(timeout)) {
            throw new AssertionError(name + " did not stop within " + timeout + " of SIGTERM; see " + log(starts));
        }
        return process.exitValue();
    }

    private boolean waitFor(Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    synchronized boolean alive() {
        return process != null && process.isAlive();
    }

    long pid() {
        return process.pid();
    }

    /** Writes a thread dump, virtual threads included, next to the logs, for a test that found it stuck. */
    Path threadDump() {
        Path dump = dir.resolve(name + "-" + starts + "-threads-" + System.currentTimeMillis() + ".txt");
        try {
            String java = ProcessHandle.current().info().command().orElse("java");
            Path jcmd = Path.of(java).resolveSibling("jcmd");
            new ProcessBuilder(jcmd.toString(), Long.toString(pid()), "Thread.dump_to_file", "-format=text",
                    dump.toString()).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start()
                    .waitFor(30, TimeUnit.SECONDS);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return dump;
    }

    /** How often it was started. */
    int starts() {
        return starts;
    }

    /** The log of the {@code n}-th start (1-based). */
    Path log(int n) {
        return dir.resolve(name + "-" + n + ".log");
    }

    /** The text of every start's log, oldest first. */
    String logs() {
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

    @Override
    public synchronized void close() {
        if (alive()) {
            kill();
        }
    }

    /** The runnable server as {@code mvn package} leaves it (as {@code scripts/run} uses it). */
    private static String serverClasspath(Path root) {
        Path target = root.resolve("server/target");
        try (Stream<Path> files = Files.list(target)) {
            Path jar = files.filter(file -> file.getFileName().toString().matches("nmc-server-[^-]+(-SNAPSHOT)?\\.jar"))
                    .findFirst().orElseThrow(() -> new IllegalStateException("no server jar in " + target
                            + ": run 'mvn install -DskipTests' first"));
            if (!Files.isDirectory(target.resolve("libs"))) {
                throw new IllegalStateException("no " + target.resolve("libs") + ": run 'mvn install -DskipTests' first");
            }
            return jar + java.io.File.pathSeparator + target.resolve("libs") + java.io.File.separator + "*";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
