package nl.overheid.moz.nmc.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import nl.overheid.moz.nmc.testing.TestDatabase;
import nl.overheid.moz.nmc.testing.TestIam;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What CI can check of the container image without a registry to pull its base from: {@code server/Dockerfile}'s
 * COPY lines are assembled from {@code server/target} into a directory exactly as the image lays them out, and its
 * ENTRYPOINT runs there as a process (the JDK running the tests standing in for the image's JRE), configured as in
 * production: secrets in the environment, the rest in the file {@code NMC_CONFIG} names, the schema validated only.
 * It must pass its readiness check and log JSON; without a NotifyNL key it must refuse with one line and exit 1.
 */
class ContainerImageTest {

    private static final Path SERVER =
            nl.overheid.moz.nmc.testing.TestDatabase.repositoryRoot().resolve("server");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static Dockerfile image;

    @TempDir
    static Path root;

    /** What the test reads from the Dockerfile. */
    record Dockerfile(
            Map<String, String> args,
            List<String[]> copies,
            String user,
            List<String> entrypoint,
            Map<String, String> env) {

        static Dockerfile parse(Path file) throws IOException {
            Map<String, String> args = new HashMap<>();
            Map<String, String> env = new HashMap<>();
            List<String[]> copies = new ArrayList<>();
            String user = null;
            List<String> entrypoint = null;
            for (String line : Files.readAllLines(file)) {
                line = line.strip();
                if (line.startsWith("ARG ")) {
                    String[] arg = line.substring(4).split("=", 2);
                    args.put(arg[0], arg.length > 1 ? arg[1] : "");
                } else if (line.startsWith("ENV ")) {
                    String[] pair = line.substring(4).split("=", 2);
                    env.put(pair[0], pair[1]);
                } else if (line.startsWith("COPY ")) {
                    String[] parts = line.substring(5).trim().split("\\s+");
                    assertThat(parts).as("COPY src dest (no flags): " + line).hasSize(2);
                    copies.add(parts);
                } else if (line.startsWith("USER ")) {
                    user = line.substring(5).trim();
                } else if (line.startsWith("ENTRYPOINT ")) {
                    List<String> parts = new ArrayList<>();
                    JSON.readTree(line.substring(11)).forEach(part -> parts.add(part.asText()));
                    entrypoint = parts;
                }
            }
            return new Dockerfile(args, copies, user, entrypoint, env);
        }

        String expand(String text) {
            Matcher variable = Pattern.compile("\\$\\{(\\w+)}").matcher(text);
            return variable.replaceAll(m -> Matcher.quoteReplacement(args.getOrDefault(m.group(1), "")));
        }
    }

    @BeforeAll
    static void assemble() throws IOException {
        image = Dockerfile.parse(SERVER.resolve("Dockerfile"));
        assertThat(image.user())
                .as("runs as a non-root user")
                .isNotNull()
                .doesNotStartWith("0")
                .doesNotStartWith("root");
        assertThat(image.entrypoint()).isNotEmpty();
        for (String[] copy : image.copies()) {
            Path source = SERVER.resolve(image.expand(copy[0]));
            Path target = root.resolve(image.expand(copy[1]).substring(1));
            assertThat(source).as("built by mvn package before this test").exists();
            if (Files.isDirectory(source)) {
                try (Stream<Path> files = Files.walk(source)) {
                    for (Path file : files.filter(Files::isRegularFile).toList()) {
                        Path to = target.resolve(source.relativize(file).toString());
                        Files.createDirectories(to.getParent());
                        Files.copy(file, to);
                    }
                }
            } else {
                Files.createDirectories(target.getParent());
                Files.copy(source, target);
            }
        }
    }

    /** The image's command with its absolute paths under the assembled root and this JDK's java. */
    private static List<String> command() {
        List<String> command = new ArrayList<>();
        for (String part : image.entrypoint()) {
            if (part.equals("java")) {
                command.add(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString());
            } else if (part.startsWith("/")) {
                command.add(root.resolve(part.substring(1)).toString());
            } else {
                command.add(part);
            }
        }
        return command;
    }

    /** Production-like: the environment holds the database and NotifyNL secrets, the file the rest. */
    private static Process start(TestDatabase database, int port, Map<String, String> environment, Path log)
            throws IOException {
        String[] yaml = new String[1];
        TestNmc.config(database, new TestIam(), "http://127.0.0.1:9", "http://127.0.0.1:9", true, "{}", base -> {
            yaml[0] = base;
            return base;
        });
        Path config = root.resolve("nmc-config-" + port + ".yaml");
        Files.writeString(config, yaml[0]);
        ProcessBuilder builder = new ProcessBuilder(command())
                .directory(root.resolve("app").toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        Map<String, String> env = builder.environment();
        env.putAll(image.env());
        env.put("NMC_CONFIG", config.toString());
        env.put("SERVER_PORT", Integer.toString(port));
        env.put("DB_URL", database.url());
        env.put("DB_USER", database.appUser()); // the runtime login, as in production
        env.put("DB_PASSWORD", database.appPassword());
        env.put("DB_SCHEMA", "validate");
        env.put("NOTIFYNL_SERVICES_STANDAARD_API_dash_KEY", TestNmc.NOTIFY_API_KEY);
        env.putAll(environment);
        return builder.start();
    }

    private static int freePort() {
        return Simulators.freePort();
    }

    @Test
    void theImagesLayoutAndCommandStartTheServerAndPassItsHealthChecks() throws Exception {
        // The migration Job's command (server/deploy/migration-job.yaml) on an empty database, then the server, which
        // only validates.
        TestDatabase empty = TestDatabase.unmigrated();
        Path migrationLog = root.resolve("nmc-migrate.log");
        List<String> migrate = new ArrayList<>();
        JsonNode job = new ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory())
                .readTree(SERVER.resolve("deploy/migration-job.yaml").toFile());
        job.path("spec")
                .path("template")
                .path("spec")
                .path("containers")
                .get(0)
                .path("command")
                .forEach(part -> migrate.add(
                        part.asText().equals("java")
                                ? Path.of(System.getProperty("java.home"), "bin", "java")
                                        .toString()
                                : part.asText().startsWith("/")
                                        ? root.resolve(part.asText().substring(1))
                                                .toString()
                                        : part.asText()));
        ProcessBuilder migration =
                new ProcessBuilder(migrate).redirectErrorStream(true).redirectOutput(migrationLog.toFile());
        migration
                .environment()
                .putAll(Map.of(
                        "DB_URL",
                        empty.url(),
                        "DB_USER",
                        empty.user(),
                        "DB_PASSWORD",
                        empty.password(),
                        "NMC_LOG_FORMAT",
                        "json"));
        Process migrating = migration.start();
        assertThat(migrating.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(migrating.exitValue()).as(Files.readString(migrationLog)).isZero();
        assertThat(Files.readString(migrationLog)).contains("schema migrated");

        int port = freePort();
        Path log = root.resolve("nmc-ready.log");
        int management = freePort();
        Process nmc = start(empty, port, Map.of("OBSERVE_PORT", Integer.toString(management)), log);
        try {
            HttpClient http = HttpClient.newBuilder()
                    .connectTimeout(Duration.ofSeconds(2))
                    .build();
            Instant deadline = Instant.now().plusSeconds(90);
            int ready = 0;
            while (Instant.now().isBefore(deadline) && nmc.isAlive()) {
                try {
                    ready = http.send(
                                    HttpRequest.newBuilder(URI.create(
                                                    "http://127.0.0.1:" + management + "/observe/health/ready"))
                                            .build(),
                                    HttpResponse.BodyHandlers.discarding())
                            .statusCode();
                    if (ready == 200) {
                        break;
                    }
                } catch (IOException notYet) {
                    // still starting
                }
                Thread.sleep(250);
            }
            assertThat(ready).as("ready; log:\n" + Files.readString(log)).isEqualTo(200);
            assertThat(http.send(
                                    HttpRequest.newBuilder(URI.create(
                                                    "http://127.0.0.1:" + management + "/observe/health/live"))
                                            .build(),
                                    HttpResponse.BodyHandlers.discarding())
                            .statusCode())
                    .isIn(200, 204);
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            assertThat(lines).anyMatch(line -> line.contains("NMC listening on port " + port));
            for (String line : lines) {
                JsonNode object = JSON.readTree(line);
                assertThat(object.path("level").isTextual())
                        .as("a JSON log line: " + line)
                        .isTrue();
            }
        } finally {
            nmc.destroy();
            nmc.waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void withoutANotifyNlKeyTheImageRefusesWithOneLineAndExitCode1() throws Exception {
        Path log = root.resolve("nmc-refused.log");
        Process nmc =
                start(TestDatabase.get(), freePort(), Map.of("NOTIFYNL_SERVICES_STANDAARD_API_dash_KEY", ""), log);
        assertThat(nmc.waitFor(90, TimeUnit.SECONDS)).isTrue();
        assertThat(nmc.exitValue()).isEqualTo(1);
        List<String> refusals = Files.readAllLines(log).stream()
                .filter(line -> line.contains("refuses to start"))
                .toList();
        assertThat(refusals).as(Files.readString(log)).hasSize(1);
        JsonNode line = JSON.readTree(refusals.getFirst());
        assertThat(line.path("level").asText()).isEqualTo("SEVERE");
        assertThat(line.path("message").asText())
                .startsWith("NMC refuses to start: notifynl.services.standaard.api-key must be a NotifyNL API key");
    }
}
