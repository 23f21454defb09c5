package nl.overheid.moz.nmc.simulator;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The part of OpenAPI 3.0's schema language the Profielservice and LDV contracts use, written out by hand so
 * the simulators validate request bodies exactly as the contracts say without a schema library on their
 * class path: objects ({@code required}, {@code additionalProperties: false}), strings ({@code pattern},
 * {@code enum}, {@code minLength}, {@code maxLength}, {@code format} uuid, date-time and email) and arrays
 * ({@code minItems}, {@code maxItems}, {@code items}). Nothing is nullable.
 *
 * <p>{@link #validate} collects every violation as a {@link FieldError} (the same keyword codes and Dutch
 * reasons as the NMC's own request validation), sorted by pointer. Reasons come from the schema, never from
 * the value.
 */
abstract sealed class ContractSchema {

    private ContractSchema() {}

    /** All violations of {@code value} (as parsed by {@link RequestBodies}), sorted by pointer; empty when valid. */
    final List<FieldError> validate(Object value) {
        List<FieldError> errors = new ArrayList<>();
        check(value, "", errors);
        errors.sort(Comparator.comparing(FieldError::name));
        return errors;
    }

    abstract void check(Object value, String pointer, List<FieldError> errors);

    static StringSchema string() {
        return new StringSchema();
    }

    static ObjectSchema object() {
        return new ObjectSchema();
    }

    static ArraySchema array(ContractSchema items) {
        return new ArraySchema(items);
    }

    private static String at(String pointer) {
        return pointer.isEmpty() ? "/" : pointer;
    }

    private static void typeError(String pointer, String type, List<FieldError> errors) {
        errors.add(new FieldError(at(pointer), "type", "Moet van type " + type + " zijn."));
    }

    /** The formats the contracts use. */
    enum Format {
        UUID("uuid", "Geen geldige UUID."),
        DATE_TIME("date-time", "Geen geldig tijdstip (RFC 3339, met tijdzone)."),
        EMAIL("email", "Geen geldig e-mailadres.");

        private final String keyword;
        private final String reason;

        Format(String keyword, String reason) {
            this.keyword = keyword;
            this.reason = reason;
        }

        String keyword() {
            return keyword;
        }

        boolean accepts(String text) {
            return switch (this) {
                case UUID -> UUID_TEXT.matcher(text).matches();
                case DATE_TIME -> parseDateTime(text).isPresent();
                case EMAIL -> EMAIL_TEXT.matcher(text).matches();
            };
        }
    }

    /** RFC 4122's textual form, as JSON Schema's {@code uuid} format: 8-4-4-4-12 hex digits, either case. */
    private static final Pattern UUID_TEXT =
            Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    /**
     * RFC 3339 {@code date-time}: full date, {@code T} (either case), full time with seconds and any number of
     * fraction digits, and an offset ({@code Z}, either case, or {@code ±hh:mm}). {@code \d} is ASCII here.
     */
    private static final Pattern DATE_TIME_TEXT =
            Pattern.compile("(\\d{4}-\\d{2}-\\d{2})[Tt](\\d{2}:\\d{2}:\\d{2})(?:\\.(\\d+))?([Zz]|[+-]\\d{2}:\\d{2})");

    /**
     * An addr-spec without comments or quoted local parts, the shape JSON Schema validators accept as
     * {@code email}: one {@code @}, a dot-atom local part, a host of dot-separated labels.
     */
    private static final Pattern EMAIL_TEXT = Pattern.compile(
            "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
                    + "@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+");

    /**
     * Parses an RFC 3339 date-time to an instant; empty when the text is not one (also for impossible dates
     * like {@code 2026-02-30} and for a leap second {@code :60}, which {@code java.time} cannot represent).
     * More than nine fraction digits are cut to nanoseconds.
     */
    static Optional<Instant> parseDateTime(String text) {
        Matcher matcher = DATE_TIME_TEXT.matcher(text);
        if (!matcher.matches()) {
            return Optional.empty();
        }
        String fraction = matcher.group(3) == null
                ? ""
                : "."
                        + matcher.group(3)
                                .substring(0, Math.min(9, matcher.group(3).length()));
        String offset = matcher.group(4).equalsIgnoreCase("z") ? "Z" : matcher.group(4);
        try {
            return Optional.of(OffsetDateTime.parse(matcher.group(1) + "T" + matcher.group(2) + fraction + offset)
                    .toInstant());
        } catch (DateTimeParseException impossible) {
            return Optional.empty();
        }
    }

    /** {@code type: string} with its keywords. */
    static final class StringSchema extends ContractSchema {
        private Pattern pattern;
        private String patternText;
        private Set<String> enumValues;
        private Integer minLength;
        private Integer maxLength;
        private Format format;

        private StringSchema() {}

        /**
         * The contract's ECMA-262 pattern. Its {@code $} is matched as end of input ({@code \z}): in
         * java.util.regex {@code $} also matches before a final line break, which would let {@code "1234567\n"}
         * through {@code ^[0-9]{8}$}.
         */
        StringSchema pattern(String contractPattern) {
            this.patternText = contractPattern;
            this.pattern = Pattern.compile(contractPattern.replaceAll("(?<!\\\\)\\$", "\\\\z"));
            return this;
        }

        StringSchema enumOf(String... values) {
            this.enumValues = new LinkedHashSet<>(Arrays.asList(values));
            return this;
        }

        StringSchema minLength(int minLength) {
            this.minLength = minLength;
            return this;
        }

        StringSchema maxLength(int maxLength) {
            this.maxLength = maxLength;
            return this;
        }

        StringSchema format(Format format) {
            this.format = format;
            return this;
        }

        @Override
        void check(Object value, String pointer, List<FieldError> errors) {
            if (!(value instanceof String text)) {
                typeError(pointer, "string", errors);
                return;
            }
            int length = text.codePointCount(0, text.length()); // JSON Schema counts characters, not UTF-16 units
            if (minLength != null && length < minLength) {
                errors.add(
                        new FieldError(at(pointer), "minLength", "Moet minstens " + minLength + " tekens lang zijn."));
            }
            if (maxLength != null && length > maxLength) {
                errors.add(
                        new FieldError(at(pointer), "maxLength", "Mag hoogstens " + maxLength + " tekens lang zijn."));
            }
            if (pattern != null && !pattern.matcher(text).find()) {
                errors.add(new FieldError(at(pointer), "pattern", "Voldoet niet aan het patroon " + patternText + "."));
            }
            if (enumValues != null && !enumValues.contains(text)) {
                errors.add(new FieldError(
                        at(pointer), "enum", "Heeft geen toegestane waarde (" + String.join(", ", enumValues) + ")."));
            }
            if (format != null && !format.accepts(text)) {
                errors.add(new FieldError(at(pointer), "format", format.reason));
            }
        }
    }

    /** {@code type: object} with {@code required}, {@code properties} and {@code additionalProperties}. */
    static final class ObjectSchema extends ContractSchema {
        /**
         * An unexpected property's own name is reported only when it looks like a field name; any other key (it
         * could be a value pasted as a key) is reported at the object's pointer, so nothing of it is echoed.
         */
        private static final Pattern FIELD_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_.-]{0,63}");

        private final Map<String, ContractSchema> properties = new LinkedHashMap<>();
        private final Set<String> required = new LinkedHashSet<>();
        private boolean additionalProperties = true;

        private ObjectSchema() {}

        ObjectSchema required(String name, ContractSchema schema) {
            properties.put(name, schema);
            required.add(name);
            return this;
        }

        ObjectSchema optional(String name, ContractSchema schema) {
            properties.put(name, schema);
            return this;
        }

        /** {@code additionalProperties: false}. */
        ObjectSchema closed() {
            this.additionalProperties = false;
            return this;
        }

        @Override
        void check(Object value, String pointer, List<FieldError> errors) {
            if (!(value instanceof Map<?, ?> object)) {
                typeError(pointer, "object", errors);
                return;
            }
            for (String name : required) {
                if (!object.containsKey(name)) {
                    errors.add(new FieldError(pointer + "/" + name, "required", "Is verplicht."));
                }
            }
            for (Map.Entry<?, ?> entry : object.entrySet()) {
                String name = String.valueOf(entry.getKey());
                ContractSchema schema = properties.get(name);
                if (schema != null) {
                    schema.check(entry.getValue(), pointer + "/" + name, errors);
                } else if (!additionalProperties) {
                    String where = FIELD_NAME.matcher(name).matches() ? pointer + "/" + name : at(pointer);
                    errors.add(new FieldError(where, "additionalProperties", "Is geen veld van dit verzoek."));
                }
            }
        }
    }

    /** {@code type: array} with {@code items}, {@code minItems} and {@code maxItems}. */
    static final class ArraySchema extends ContractSchema {
        private final ContractSchema items;
        private Integer minItems;
        private Integer maxItems;

        private ArraySchema(ContractSchema items) {
            this.items = items;
        }

        ArraySchema minItems(int minItems) {
            this.minItems = minItems;
            return this;
        }

        ArraySchema maxItems(int maxItems) {
            this.maxItems = maxItems;
            return this;
        }

        @Override
        void check(Object value, String pointer, List<FieldError> errors) {
            if (!(value instanceof List<?> list)) {
                typeError(pointer, "array", errors);
                return;
            }
            if (minItems != null && list.size() < minItems) {
                errors.add(
                        new FieldError(at(pointer), "minItems", "Moet minstens " + minItems + " elementen bevatten."));
            }
            if (maxItems != null && list.size() > maxItems) {
                errors.add(
                        new FieldError(at(pointer), "maxItems", "Mag hoogstens " + maxItems + " elementen bevatten."));
            }
            for (int i = 0; i < list.size(); i++) {
                items.check(list.get(i), pointer + "/" + i, errors);
            }
        }
    }
}
