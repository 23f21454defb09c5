package nl.overheid.moz.nmc.simulator;

import com.github.tomakehurst.wiremock.common.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Reads the request bodies of the Profielservice ({@code PartijRequest}, {@code PartijIdentificatieRequest}) the
 * way the real service's stack does, in its order, so that each kind of mistake gets the answer shape the
 * service gives it (research notes §3.3.2):
 * <ol>
 *   <li>no body, only white space, or JSON {@code null}: its {@code RequireBodyReaderInterceptor}, "Request body
 *       mag niet leeg zijn";</li>
 *   <li>Jackson, with the generator's {@code @JsonCreator} (required properties): text that is not JSON or not
 *       an object, a value of the wrong JSON type, an unknown enum constant (in the order the keys come), then
 *       the first required property that is absent: "Malformed request body", with the property in
 *       {@code field} where there is one. Unknown properties are ignored, as Quarkus' Jackson does;</li>
 *   <li>bean validation: {@code @NotNull} on a required property sent as {@code null} and {@code @Pattern} on
 *       every text field, all violations at once, each {@code {field, in: "body", message}} with Hibernate
 *       Validator's default English message.</li>
 * </ol>
 * Where the real stack's behaviour is not pinned by its tests, the simulator decides and says so: a number sent
 * for a text field is refused as "Malformed request body" (Jackson would coerce it to text; refusing it lets a
 * client bug show), and a body that is not a JSON object carries no {@code field}. Nothing of a value is ever
 * put into an answer.
 */
final class ProfielRequests {

    /** The contract's pattern on every text field; Hibernate Validator matches it against the whole value. */
    static final String TEXT_PATTERN = "^[^\\r\\n]*\\S[^\\r\\n]*$";

    private static final Pattern TEXT = Pattern.compile(TEXT_PATTERN);
    /** Hibernate Validator's default {@code @Pattern} message, with the regexp filled in. */
    static final String PATTERN_MESSAGE = "must match \"" + TEXT_PATTERN + "\"";
    /** Hibernate Validator's default {@code @NotNull} message. */
    static final String NOT_NULL_MESSAGE = "must not be null";

    private ProfielRequests() {}

    /** The outcome of reading a body. */
    sealed interface Parsed {}

    /** A valid request; {@code dienstverlener} and {@code dienstNaam} are null when absent or null. */
    record Valid(Party.IdentificatieType type, String nummer, String dienstverlener, String dienstNaam)
            implements Parsed {

        /** Leaves the number out. */
        @Override
        public String toString() {
            return "Valid[" + type + "]";
        }
    }

    /** No body: 400 "Request body mag niet leeg zijn". */
    record Empty() implements Parsed {}

    /** Refused by Jackson: 400 "Malformed request body", {@code field} null when the problem has none. */
    record Malformed(String field) implements Parsed {}

    /** Refused by bean validation: 400 with {@code violations}. */
    record Violations(List<Violation> violations) implements Parsed {}

    record Violation(String field, String message) {}

    /** {@code PartijRequest}: {@code identificatieType}, {@code identificatieNummer}, optional filters. */
    static Parsed partijRequest(String body) {
        return read(body, true);
    }

    /** {@code PartijIdentificatieRequest}: {@code identificatieType} and {@code identificatieNummer}. */
    static Parsed identificatieRequest(String body) {
        return read(body, false);
    }

    private static Parsed read(String body, boolean withFilters) {
        if (body == null || body.isBlank()) {
            return new Empty();
        }
        Object value;
        try {
            value = Json.read(body, Object.class);
        } catch (RuntimeException malformed) {
            return new Malformed(null);
        }
        if (value == null) {
            return new Empty();
        }
        if (!(value instanceof Map<?, ?> object)) {
            return new Malformed(null);
        }
        List<String> textFields = withFilters
                ? List.of("identificatieNummer", "dienstverlener", "dienstNaam")
                : List.of("identificatieNummer");
        for (Map.Entry<?, ?> entry : object.entrySet()) {
            String name = String.valueOf(entry.getKey());
            Object field = entry.getValue();
            if (name.equals("identificatieType")) {
                if (field != null && !(field instanceof String text && isIdentificatieType(text))) {
                    return new Malformed(name);
                }
            } else if (textFields.contains(name) && field != null && !(field instanceof String)) {
                return new Malformed(name);
            }
        }
        for (String required : List.of("identificatieType", "identificatieNummer")) {
            if (!object.containsKey(required)) {
                return new Malformed(required);
            }
        }
        List<Violation> violations = new ArrayList<>();
        String type = (String) object.get("identificatieType");
        if (type == null) {
            violations.add(new Violation("identificatieType", NOT_NULL_MESSAGE));
        }
        for (String name : textFields) {
            String text = (String) object.get(name);
            if (text == null) {
                if (name.equals("identificatieNummer")) {
                    violations.add(new Violation(name, NOT_NULL_MESSAGE));
                }
            } else if (!TEXT.matcher(text).matches()) {
                violations.add(new Violation(name, PATTERN_MESSAGE));
            }
        }
        if (!violations.isEmpty()) {
            return new Violations(violations);
        }
        return new Valid(
                Party.IdentificatieType.valueOf(type),
                (String) object.get("identificatieNummer"),
                withFilters ? (String) object.get("dienstverlener") : null,
                withFilters ? (String) object.get("dienstNaam") : null);
    }

    private static boolean isIdentificatieType(String text) {
        for (Party.IdentificatieType type : Party.IdentificatieType.values()) {
            if (type.name().equals(text)) {
                return true;
            }
        }
        return false;
    }
}
