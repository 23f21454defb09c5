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

    /**
     * Refuses a parameter of {@code names} named without a value ({@code ?cursor}, {@code ?fout}): Helidon reads it
     * as absent, so a client that lost a value would get an answer to another question (a feed from its oldest
     * event, an unfiltered listing). A client's mistake, refused as an empty value ({@code ?cursor=}) is.
     */
    static void noneWithoutValue(io.helidon.webserver.http.ServerRequest request, String... names) {
        for (String name : names) {
            if (request.query().contains(name) && request.query().first(name).isEmpty()) {
                throw ProblemException.invalid(name, "required", name + " heeft geen waarde.");
            }
        }
    }

    private static ProblemException invalid(String name) {
        return ProblemException.invalid(name, "type", "Parameter '" + name + "' heeft geen geldige waarde.");
    }
}
