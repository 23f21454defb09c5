package nl.overheid.moz.nmc.simulator;

import java.time.Instant;
import java.util.function.Consumer;

/** Environment settings and stdout logging for the simulators' {@code main} methods. */
final class SimulatorEnv {

    private SimulatorEnv() {}

    /** The variable's stripped value, or {@code fallback} when it is unset or blank. */
    static String fromEnv(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value.strip();
    }

    /** @throws IllegalArgumentException when the variable is set but not a whole number */
    static int intFromEnv(String name, int fallback) {
        String value = fromEnv(name, null);
        if (value == null) {
            return fallback;
        }
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException notANumber) {
            throw new IllegalArgumentException(name + " must be a whole number, got '" + value + "'");
        }
    }

    /** Prints {@code <instant> <prefix> <line>} to stdout, like the NotifyNL simulator's log. */
    static Consumer<String> stdout(String prefix) {
        return line -> System.out.println(Instant.now() + " " + prefix + " " + line);
    }
}
