package nl.overheid.moz.nmc.bench;

import io.helidon.config.Config;
import io.helidon.config.ConfigSources;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

/**
 * Everything a benchmark needs from its surroundings: the options of the run, the PostgreSQL cluster and
 * pgbench, how to start the NMC, the benchmark's DVs and their tokens. Built once per run by {@link Bench}.
 *
 * <p>The DVs: {@value #NMC_DVS} that the load generator calls as ({@link #nmcOin}), and {@value #NMC_DVS} that
 * pgbench writes for ({@link #pgbenchOin}), so the NMC's per-DV reads never see the baseline's rows.
 */
public final class BenchContext {

    public static final int NMC_DVS = 10;
    public static final String BERICHTTYPE = "bench-bericht";

    private final Path repository;
    private final Path outDirectory;
    private final Postgres postgres;
    private final Pgbench pgbench;
    private final Path java;
    private final String serverClassPath;
    private final long postmasterPid;
    private final boolean quick;
    private final Duration pointDuration;
    private final Path nmcConfig;
    private final Config config;
    private final Map<String, String> tokens = new ConcurrentHashMap<>();
    private final String ldvUser;
    private final String ldvPassword;

    BenchContext(
            Path repository,
            Path outDirectory,
            Postgres postgres,
            Path pgbenchExecutable,
            Path postgresData,
            boolean quick,
            Duration pointDuration,
            String ldvUser,
            String ldvPassword) {
        this.ldvUser = ldvUser;
        this.ldvPassword = ldvPassword;
        this.repository = repository;
        this.outDirectory = outDirectory;
        this.postgres = postgres;
        this.pgbench = new Pgbench(pgbenchExecutable, postgres, outDirectory.resolve("pgbench"));
        this.java = Path.of(ProcessHandle.current().info().command().orElse("java"));
        this.serverClassPath = serverClassPath(repository);
        this.postmasterPid = postgresData == null ? -1 : CpuMeter.postmasterPid(postgresData);
        this.quick = quick;
        this.pointDuration = pointDuration;
        this.nmcConfig = writeNmcConfig(outDirectory);
        this.config = Config.builder()
                .disableEnvironmentVariablesSource()
                .disableSystemPropertiesSource()
                .addSource(ConfigSources.file(nmcConfig))
                .build();
    }

    public Path repository() {
        return repository;
    }

    /** {@code target/bench} of the repository: results, logs, pgbench scripts and logs. */
    public Path outDirectory() {
        return outDirectory;
    }

    public Postgres postgres() {
        return postgres;
    }

    /** The processing log's database in the same cluster ({@code scripts/pg} makes it with its own role). */
    public String ldvUrl() {
        return postgres.jdbcUrl("ldv");
    }

    public String ldvUser() {
        return ldvUser;
    }

    public String ldvPassword() {
        return ldvPassword;
    }

    public Pgbench pgbench() {
        return pgbench;
    }

    public Path java() {
        return java;
    }

    public String serverClassPath() {
        return serverClassPath;
    }

    public long postmasterPid() {
        return postmasterPid;
    }

    /** Short runs that check the harness end to end; their figures mean little. */
    public boolean quick() {
        return quick;
    }

    /** How long one measured point runs (a client count, a rate). */
    public Duration pointDuration() {
        return pointDuration;
    }

    /** {@code n} when running normally, {@code quickN} in a quick run. */
    public int size(int n, int quickN) {
        return quick ? quickN : n;
    }

    /** The NMC's configuration file of this run ({@code NMC_CONFIG}). */
    public Path nmcConfig() {
        return nmcConfig;
    }

    /** That configuration, read as the NMC reads it (for the KEK and the cursor key). */
    public Config config() {
        return config;
    }

    public String notifyApiKey() {
        return config.get("notifynl.services.standaard.api-key").asString().get();
    }

    public String callbackToken() {
        return config.get("notifynl.callback-token").asString().get();
    }

    /** The OIN of the load generator's DV {@code i} (1-based). */
    public static String nmcOin(int i) {
        return String.format("000000099%011d", i);
    }

    /** The OIN of pgbench's DV {@code i} (1-based). */
    public static String pgbenchOin(int i) {
        return String.format("000000098%011d", i);
    }

    /** A dev IAM token for the DV ({@code scripts/dev-token}), made once per run. */
    public String token(String oin) {
        return tokens.computeIfAbsent(oin, this::devToken);
    }

    /** The register id of a DV in a benchmark database (after the NMC seeded it). */
    public String dvId(String database, String oin) {
        String id = postgres.text(database, "SELECT CAST(id AS text) FROM dienstverlener WHERE oin = ?", oin);
        if (id == null) {
            throw new IllegalStateException("DV " + oin + " is not in " + database + "; did the NMC seed it?");
        }
        return id;
    }

    private String devToken(String oin) {
        try {
            Process process = new ProcessBuilder(
                            repository.resolve("scripts/dev-token").toString(), oin)
                    .directory(repository.toFile())
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
            String token = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (process.waitFor() != 0 || token.isEmpty()) {
                throw new IllegalStateException("scripts/dev-token " + oin + " failed");
            }
            return token;
        } catch (IOException e) {
            throw new IllegalStateException("cannot run scripts/dev-token", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The template with the DVs filled in, written to {@code target/bench/nmc-bench.yaml}. */
    private static Path writeNmcConfig(Path outDirectory) {
        try (InputStream in = BenchContext.class.getResourceAsStream("/bench/nmc-bench.yaml")) {
            if (in == null) {
                throw new IllegalStateException("bench/nmc-bench.yaml is not on the class path");
            }
            String template = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            List<String> dvs = new ArrayList<>();
            IntStream.rangeClosed(1, NMC_DVS).forEach(i -> {
                dvs.add(dv(nmcOin(i), "Benchmark DV " + i));
                dvs.add(dv(pgbenchOin(i), "pgbench DV " + i));
            });
            Files.createDirectories(outDirectory);
            Path file = outDirectory.resolve("nmc-bench.yaml");
            Files.writeString(file, template.replace("#DIENSTVERLENERS#", String.join("\n", dvs)));
            return file;
        } catch (IOException e) {
            throw new IllegalStateException("cannot write the benchmark configuration", e);
        }
    }

    private static String dv(String oin, String naam) {
        return "      - oin: \"" + oin + "\"\n"
                + "        naam: " + naam + "\n"
                + "        quotum-per-minuut: 100000000\n"
                + "        berichttypen: [" + BERICHTTYPE + "]";
    }

    /** The server jar and its libs, as {@code scripts/run} puts them on the class path. */
    private static String serverClassPath(Path repository) {
        Path target = repository.resolve("server/target");
        try (var jars = Files.list(target)) {
            Path jar = jars.filter(p -> p.getFileName().toString().matches("nmc-server-.*\\.jar")
                            && !p.getFileName().toString().contains("tests"))
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException(
                            "no server jar in " + target + "; build first (scripts/bench does)"));
            return jar + File.pathSeparator + target.resolve("libs") + "/*";
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + target, e);
        }
    }
}
