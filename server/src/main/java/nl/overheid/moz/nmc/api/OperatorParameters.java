package nl.overheid.moz.nmc.api;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The operator API's path and query values that the generated services pass on unchecked (patterns, ranges):
 * checked against the contract's rules here, a 400 naming the parameter and never echoing the value.
 */
final class OperatorParameters {

    static final Pattern OIN = Pattern.compile("^[0-9]{20}$");
    static final Pattern CODE = Pattern.compile("^[a-z0-9][a-z0-9-]{0,99}$");
    static final Pattern ERROR_CLASS = Pattern.compile("^[\\x21-\\x7E]{1,100}$");
    static final int DEFAULT_LIMIT = 100;
    static final int MAX_LIMIT = 500;

    private OperatorParameters() {}

    static void check(Optional<String> value, String name, Pattern pattern) {
        value.ifPresent(v -> check(v, name, pattern));
    }

    static String check(String value, String name, Pattern pattern) {
        if (value == null || !pattern.matcher(value).matches()) {
            throw ProblemException.invalid(name, "pattern", "Voldoet niet aan het patroon " + pattern.pattern() + ".");
        }
        return value;
    }

    static int limit(Optional<Integer> limit) {
        int size = limit.orElse(DEFAULT_LIMIT);
        if (size < 1 || size > MAX_LIMIT) {
            throw ProblemException.invalid("limit", "range", "limit moet tussen 1 en " + MAX_LIMIT + " liggen.");
        }
        return size;
    }

    /** The contract's {@code TaakId}: at least 1 (0 or less is a 400, not a 404 for a task that cannot exist). */
    static long taskId(Long id) {
        if (id == null || id < 1) {
            throw ProblemException.invalid("id", "minimum", "id moet minstens 1 zijn.");
        }
        return id;
    }

    static long position(Optional<Long> na) {
        long position = na.orElse(0L);
        if (position < 0) {
            throw ProblemException.invalid("na", "minimum", "na mag niet negatief zijn.");
        }
        return position;
    }
}
