package nl.overheid.moz.nmc.api;

import java.util.function.Function;

/**
 * Conversion of path and query values, called from the generated services (see the template override in
 * {@code src/main/openapi-templates}). A value that does not convert is a 400 naming the parameter; the
 * value itself is not echoed.
 */
public final class ParameterParsing {

    private ParameterParsing() {}

    public static <T> T parse(String name, String value, Function<String, T> converter) {
        T result;
        try {
            result = converter.apply(value);
        } catch (IllegalArgumentException | java.time.DateTimeException e) {
            throw invalid(name);
        }
        // A moment as the bodies' date-time (RequestSchemas): OffsetDateTime.parse also takes a year like +300000.
        if (result instanceof java.time.OffsetDateTime && !RequestSchemas.rfc3339(value)) {
            throw invalid(name);
        }
        return result;
    }

    private static ProblemException invalid(String name) {
        return ProblemException.invalid(name, "type", "Parameter '" + name + "' heeft geen geldige waarde.");
    }
}
