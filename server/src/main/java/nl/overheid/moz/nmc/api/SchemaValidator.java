package nl.overheid.moz.nmc.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Validates a JSON value against a schema of an OpenAPI 3.0 document and reports <em>all</em> violations
 * at once (NL API Design Rules {@code /core/error-handling/all-errors}).
 *
 * <p>It implements the part of OpenAPI 3.0's schema dialect that the NMC's documents use: {@code $ref},
 * {@code type}, {@code nullable}, {@code required}, {@code properties}, {@code additionalProperties},
 * {@code minProperties}/{@code maxProperties}, {@code minLength}/{@code maxLength}, {@code pattern},
 * {@code enum}, {@code minimum}/{@code maximum}, {@code minItems}/{@code maxItems}, {@code items} and the
 * formats {@code email}, {@code date-time}, {@code uuid}. An unknown keyword is ignored, as JSON Schema does.
 * Messages name the field by JSON pointer and never repeat the value.
 */
public final class SchemaValidator {

    // Pragmatic address check (RFC 5321 lengths, one @, a dotted domain); NotifyNL validates again.
    private static final Pattern EMAIL = Pattern.compile(
            "^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
                    + "(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$");

    private final JsonNode document;
    private final Map<String, Pattern> patterns = new ConcurrentHashMap<>();

    SchemaValidator(JsonNode document) {
        this.document = document;
    }

    /** Validates {@code value} against {@code #/components/schemas/<schemaName>}. */
    public List<ProblemException.FieldError> validate(String schemaName, JsonNode value) {
        JsonNode schema = document.path("components").path("schemas").path(schemaName);
        if (schema.isMissingNode()) {
            throw new IllegalArgumentException("no schema " + schemaName);
        }
        List<ProblemException.FieldError> errors = new ArrayList<>();
        check(schema, value, "", errors);
        return errors;
    }

    private void check(JsonNode schema, JsonNode value, String pointer, List<ProblemException.FieldError> errors) {
        schema = resolve(schema);
        String name = pointer.isEmpty() ? "/" : pointer;
        if (value == null || value.isNull()) {
            if (!schema.path("nullable").asBoolean(false)) {
                errors.add(new ProblemException.FieldError(name, "nullable", "Mag niet null zijn."));
            }
            return;
        }
        String type = schema.path("type").asText("");
        if (!type.isEmpty() && !hasType(value, type)) {
            errors.add(new ProblemException.FieldError(name, "type", "Moet van type " + type + " zijn."));
            return;
        }
        if (schema.has("enum") && !contains(schema.get("enum"), value)) {
            errors.add(new ProblemException.FieldError(name, "enum", "Heeft geen toegestane waarde."));
        }
        if (value.isTextual()) {
            checkString(schema, value.asText(), name, errors);
        }
        if (value.isNumber() && schema.path("format").asText("").equals("int32") && !value.canConvertToInt()) {
            errors.add(new ProblemException.FieldError(name, "format", "Valt buiten het bereik van int32."));
        } else if (value.isNumber() && schema.path("format").asText("").equals("int64") && !value.canConvertToLong()) {
            errors.add(new ProblemException.FieldError(name, "format", "Valt buiten het bereik van int64."));
        }
        if (value.isNumber()) {
            if (schema.has("minimum") && value.decimalValue().compareTo(schema.get("minimum").decimalValue()) < 0) {
                errors.add(new ProblemException.FieldError(name, "minimum",
                        "Moet minstens " + schema.get("minimum").asText() + " zijn."));
            }
            if (schema.has("maximum") && value.decimalValue().compareTo(schema.get("maximum").decimalValue()) > 0) {
                errors.add(new ProblemException.FieldError(name, "maximum",
                        "Mag hoogstens " + schema.get("maximum").asText() + " zijn."));
            }
        }
        if (value.isArray()) {
            checkArray(schema, value, pointer, errors);
        }
        if (value.isObject()) {
            checkObject(schema, value, pointer, errors);
        }
    }

    private void checkString(JsonNode schema, String text, String name, List<ProblemException.FieldError> errors) {
        int length = text.codePointCount(0, text.length());
        if (schema.has("minLength") && length < schema.get("minLength").asInt()) {
            errors.add(new ProblemException.FieldError(name, "minLength",
                    "Moet minstens " + schema.get("minLength").asInt() + " tekens lang zijn."));
        }
        if (schema.has("maxLength") && length > schema.get("maxLength").asInt()) {
            errors.add(new ProblemException.FieldError(name, "maxLength",
                    "Mag hoogstens " + schema.get("maxLength").asInt() + " tekens lang zijn."));
        }
        if (schema.has("pattern")) {
            Pattern pattern = patterns.computeIfAbsent(schema.get("pattern").asText(), SchemaValidator::ecmaPattern);
            if (!pattern.matcher(text).find()) {
                errors.add(new ProblemException.FieldError(name, "pattern", "Voldoet niet aan het patroon "
                        + pattern.pattern() + "."));
            }
        }
        switch (schema.path("format").asText("")) {
            case "email" -> {
                if (text.length() > 254 || !EMAIL.matcher(text).matches()) {
                    errors.add(new ProblemException.FieldError(name, "format", "Geen geldig e-mailadres."));
                }
            }
            case "date-time" -> {
                try {
                    OffsetDateTime.parse(text);
                } catch (DateTimeParseException e) {
                    errors.add(new ProblemException.FieldError(name, "format",
                            "Geen geldig tijdstip (RFC 3339, met tijdzone)."));
                }
            }
            case "uuid" -> {
                if (!isUuid(text)) {
                    errors.add(new ProblemException.FieldError(name, "format", "Geen geldige UUID."));
                }
            }
            default -> {
            }
        }
    }

    private void checkArray(JsonNode schema, JsonNode value, String pointer, List<ProblemException.FieldError> errors) {
        String name = pointer.isEmpty() ? "/" : pointer;
        if (schema.has("minItems") && value.size() < schema.get("minItems").asInt()) {
            errors.add(new ProblemException.FieldError(name, "minItems", "Bevat te weinig elementen."));
        }
        if (schema.has("maxItems") && value.size() > schema.get("maxItems").asInt()) {
            errors.add(new ProblemException.FieldError(name, "maxItems", "Bevat te veel elementen."));
        }
        if (schema.has("items")) {
            for (int i = 0; i < value.size(); i++) {
                check(schema.get("items"), value.get(i), pointer + "/" + i, errors);
            }
        }
    }

    private void checkObject(JsonNode schema, JsonNode value, String pointer, List<ProblemException.FieldError> errors) {
        String name = pointer.isEmpty() ? "/" : pointer;
        JsonNode properties = schema.path("properties");
        for (JsonNode required : schema.path("required")) {
            if (!value.has(required.asText())) {
                errors.add(new ProblemException.FieldError(pointer + "/" + escape(required.asText()), "required",
                        "Is verplicht."));
            }
        }
        if (schema.has("minProperties") && value.size() < schema.get("minProperties").asInt()) {
            errors.add(new ProblemException.FieldError(name, "minProperties", "Bevat te weinig velden."));
        }
        if (schema.has("maxProperties") && value.size() > schema.get("maxProperties").asInt()) {
            errors.add(new ProblemException.FieldError(name, "maxProperties", "Bevat te veel velden."));
        }
        JsonNode additional = schema.get("additionalProperties");
        Iterator<Map.Entry<String, JsonNode>> fields = value.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> field = fields.next();
            String fieldPointer = pointer + "/" + escape(field.getKey());
            if (properties.has(field.getKey())) {
                check(properties.get(field.getKey()), field.getValue(), fieldPointer, errors);
            } else if (additional != null && additional.isBoolean() && !additional.asBoolean()) {
                errors.add(new ProblemException.FieldError(fieldPointer, "additionalProperties",
                        "Is geen veld van dit verzoek."));
            } else if (additional != null && additional.isObject()) {
                check(additional, field.getValue(), fieldPointer, errors);
            }
        }
    }

    /**
     * JSON Schema patterns are ECMA-262 regular expressions, where {@code $} ends the input; in Java it also
     * matches before a final line break, which would let {@code "X\n"} through {@code ^[\x21-\x7E]+$}.
     */
    static Pattern ecmaPattern(String pattern) {
        return Pattern.compile(pattern.replaceAll("(?<!\\\\)\\$", "\\\\z"));
    }

    private JsonNode resolve(JsonNode schema) {
        int depth = 0;
        while (schema.has("$ref")) {
            String ref = schema.get("$ref").asText();
            if (!ref.startsWith("#/") || ++depth > 16) {
                throw new IllegalStateException("unsupported $ref " + ref);
            }
            schema = document.at(ref.substring(1));
        }
        return schema;
    }

    private static boolean hasType(JsonNode value, String type) {
        return switch (type) {
            case "object" -> value.isObject();
            case "array" -> value.isArray();
            case "string" -> value.isTextual();
            case "integer" -> value.isIntegralNumber()
                    || (value.isNumber() && value.decimalValue().stripTrailingZeros().scale() <= 0);
            case "number" -> value.isNumber();
            case "boolean" -> value.isBoolean();
            default -> true;
        };
    }

    private static boolean contains(JsonNode values, JsonNode value) {
        for (JsonNode candidate : values) {
            if (candidate.equals(value)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isUuid(String text) {
        if (text.length() != 36) {
            return false;
        }
        try {
            UUID.fromString(text);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static String escape(String key) {
        return key.replace("~", "~0").replace("/", "~1");
    }
}
