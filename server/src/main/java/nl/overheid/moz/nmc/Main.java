package nl.overheid.moz.nmc;

import io.helidon.config.Config;
import io.helidon.config.ConfigSources;
import io.helidon.logging.common.LogConfig;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.logging.StdoutLogHandler;

/**
 * Starts the NMC. Configuration: environment variables and system properties override the files of the directory
 * named by {@code NMC_SECRETS_DIR} (if any; each file's name is a key and its content the value, as a mounted
 * Kubernetes secret lays them out), which override the file named by {@code NMC_CONFIG} (if any), which overrides the
 * packaged {@code application.yaml}.
 */
public final class Main {

    private static final String CARRIERS_PROPERTY = "jdk.virtualThreadScheduler.parallelism";

    private Main() {}

    public static void main(String[] args) {
        // Before anything logs: what the NMC logs while it stops on SIGTERM must not be lost.
        if (System.getProperty("java.util.logging.manager") == null) {
            System.setProperty("java.util.logging.manager", StoppingLogManager.class.getName());
        }
        // Before the first virtual thread: more carrier threads than cores. A virtual thread yields its carrier only
        // when it blocks, so a few calls busy on the CPU (a 4 MB bulk body parsed, validated and sealed) held both
        // carriers of a 2-core pod while short calls waited behind them; with more carriers the OS shares the CPU
        // among them (benchmark flood: another DV's median under the flood 97 ms at 2 carriers, 22 ms at 16).
        if (System.getProperty(CARRIERS_PROPERTY) == null) {
            System.setProperty(
                    CARRIERS_PROPERTY,
                    Integer.toString(Math.max(16, 4 * Runtime.getRuntime().availableProcessors())));
        }
        LogConfig.configureRuntime();
        Nmc nmc;
        try {
            StdoutLogHandler.formatter(StdoutLogHandler.format());
            nmc = Nmc.start(config(), Nmc.systemClock());
        } catch (RuntimeException e) {
            // One line an operator can act on (a missing key, a value out of range, a schema that does not
            // validate); the stack trace only at FINE, since the cause is the configuration, not the code.
            Logger log = Logger.getLogger(Main.class.getName());
            log.severe(refusal(e));
            log.log(Level.FINE, "start-up refused", e);
            System.exit(1);
            return;
        }
        // SIGTERM (or SIGINT): a graceful stop within engine.shutdown-grace, see Nmc.close.
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            try {
                                nmc.close();
                            } finally {
                                StoppingLogManager.resetAfterStop();
                            }
                        },
                        "nmc-shutdown"));
    }

    /**
     * The one line a refused start logs: "NMC refuses to start: " and the messages of the exception and its causes
     * that add something, on one line. Messages name keys and limits, never their values.
     */
    public static String refusal(Throwable e) {
        StringBuilder line = new StringBuilder("NMC refuses to start: ");
        String previous = null;
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            String message = cause.getMessage() == null
                    ? null
                    : cause.getMessage().replaceAll("\\s+", " ").trim();
            if (message == null || message.isEmpty() || (previous != null && previous.contains(message))) {
                continue;
            }
            if (previous != null) {
                line.append(" <- ");
            }
            line.append(message);
            previous = message;
        }
        if (previous == null) {
            line.append(e.getClass().getSimpleName());
        }
        return line.length() > 600 ? line.substring(0, 597) + "..." : line.toString();
    }

    public static Config config() {
        return config(
                Optional.ofNullable(System.getenv("NMC_CONFIG")),
                Optional.ofNullable(System.getenv("NMC_SECRETS_DIR")));
    }

    /**
     * The sources in their order. The secrets directory keeps keys out of the environment, which the same user reads
     * through {@code /proc/<pid>/environ} and which diagnostic dumps carry; a file can have a mode of its own.
     */
    static Config config(Optional<String> configFile, Optional<String> secretsDir) {
        Config.Builder builder =
                Config.builder().disableEnvironmentVariablesSource().disableSystemPropertiesSource();
        builder.addSource(ConfigSources.environmentVariables());
        builder.addSource(ConfigSources.systemProperties());
        secretsDir.ifPresent(dir -> builder.addSource(ConfigSources.directory(dir)));
        configFile.ifPresent(file -> builder.addSource(ConfigSources.file(file)));
        builder.addSource(ConfigSources.classpath("application.yaml"));
        return builder.build();
    }
}
