package nl.overheid.moz.nmc;

import io.helidon.config.Config;
import io.helidon.config.ConfigSources;
import io.helidon.logging.common.LogConfig;
import java.util.Optional;

/**
 * Starts the NMC. Configuration: environment variables and system properties override the file named by
 * {@code NMC_CONFIG} (if any), which overrides the packaged {@code application.yaml}.
 */
public final class Main {

    private Main() {
    }

    public static void main(String[] args) {
        // Before anything logs: what the NMC logs while it stops on SIGTERM must not be lost.
        if (System.getProperty("java.util.logging.manager") == null) {
            System.setProperty("java.util.logging.manager", StoppingLogManager.class.getName());
        }
        LogConfig.configureRuntime();
        Nmc nmc = Nmc.start(config(), Nmc.systemClock());
        // SIGTERM (or SIGINT): a graceful stop within engine.shutdown-grace, see Nmc.close.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                nmc.close();
            } finally {
                StoppingLogManager.resetAfterStop();
            }
        }, "nmc-shutdown"));
    }

    public static Config config() {
        Config.Builder builder = Config.builder().disableEnvironmentVariablesSource().disableSystemPropertiesSource();
        builder.addSource(ConfigSources.environmentVariables());
        builder.addSource(ConfigSources.systemProperties());
        Optional.ofNullable(System.getenv("NMC_CONFIG")).ifPresent(file -> builder.addSource(ConfigSources.file(file)));
        builder.addSource(ConfigSources.classpath("application.yaml"));
        return builder.build();
    }
}
