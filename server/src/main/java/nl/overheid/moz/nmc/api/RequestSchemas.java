package nl.overheid.moz.nmc.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonMetaSchema;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.NonValidationKeyword;
import com.networknt.schema.PathType;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import com.networknt.schema.format.PatternFormat;
import com.networknt.schema.oas.OpenApi30;
import com.networknt.schema.regex.RegularExpression;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Validates request bodies against the schemas of a published OpenAPI 3.0 document, with networknt's JSON
 * Schema validator in its OpenAPI 3.0 dialect ({@code nullable}, formats asserted), reporting all errors
 * at once (NL API Design Rules {@code /core/error-handling/all-errors}). Messages name the field by JSON
 * pointer and never repeat the value. The contracts refuse control characters in every text value with a
 * pattern; OpenAPI 3.0 has no {@code propertyNames} for the names of an open object (personalisation, the
 * fields NotifyNL may add), so a name with a control character is refused here, naming the object that holds
 * it, never the name itself. A text with an unpaired surrogate ({@code "\\ud800"}: valid JSON syntax, but no
 * Unicode text, which I-JSON, RFC 7493 §2.1, excludes) is refused too: the database driver would have stored it
 * as {@code ?}, so the NMC would have answered, sent and deduplicated another text than the one it accepted.
 */
public final class RequestSchemas {

    private static final String DOCUMENT_IRI = "https://nmc.invalid/api-spec/document.json";

    /**
     * The library's {@code email} format only accepts top-level domains of the IANA list, which refuses
     * NotifyNL's own test addresses ({@code @simulator.notify}) and any TLD newer than the library. This one
     * is pragmatic (RFC 5321 lengths, one {@code @}, a dotted domain); NotifyNL validates again.
     */
    private static final PatternFormat EMAIL = PatternFormat.of(
            "email",
            "^(?=.{1,254}\\z)[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
                    + "(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+\\z",
            "format.email");

    /**
     * RFC 3339 as the generated models bind it ({@code OffsetDateTime}): the library's own {@code date-time} also
     * takes a leap second ({@code 23:59:60}) and a lower-case {@code t} or {@code z}, which then failed to bind — a
     * 500 for NotifyNL's callback, found by fuzzing. Such a moment is a 400 like any other malformed one.
     */
    private static final com.networknt.schema.Format DATE_TIME = new com.networknt.schema.format.DateTimeFormat() {
        @Override
        public boolean matches(com.networknt.schema.ExecutionContext context, String value) {
            return rfc3339(value) && super.matches(context, value);
        }
    };

    private static final java.util.regex.Pattern RFC_3339 = java.util.regex.Pattern.compile(
            "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,9})?(Z|[+-][0-9]{2}:[0-9]{2})\\z");

    /**
     * Whether {@code value} is an RFC 3339 moment that binds as an {@code OffsetDateTime}: four-digit years only
     * ({@code OffsetDateTime.parse} also takes {@code +300000-…}, beyond what PostgreSQL stores), no leap second.
     */
    static boolean rfc3339(String value) {
        if (!RFC_3339.matcher(value).matches()) {
            return false;
        }
        try {
            java.time.OffsetDateTime.parse(value);
            return true;
        } catch (java.time.DateTimeException e) {
            return false;
        }
    }

    private final JsonSchemaFactory factory;
    private final SchemaValidatorsConfig config;
    private final Map<String, JsonSchema> schemas = new ConcurrentHashMap<>();

    RequestSchemas(JsonNode document) {
        String json = document.toString();
        // The document's own top-level fields are not schema keywords; declaring them keeps the log quiet.
        JsonMetaSchema.Builder openApi =
                JsonMetaSchema.builder(OpenApi30.getInstance()).format(EMAIL).format(DATE_TIME);
        document.fieldNames().forEachRemaining(field -> openApi.keyword(new NonValidationKeyword(field)));
        JsonMetaSchema dialect = openApi.build();
        this.factory = JsonSchemaFactory.builder(JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V4))
                .metaSchema(dialect)
                .defaultMetaSchemaIri(OpenApi30.getInstance().getIri())
                .schemaLoaders(loaders -> loaders.schemas(Map.of(DOCUMENT_IRI, json)))
                .build();
        this.config = SchemaValidatorsConfig.builder()
                .formatAssertionsEnabled(true)
                .regularExpressionFactory(RequestSchemas::ecmaPattern)
                .pathType(PathType.JSON_POINTER)
                .build();
    }

    /** A control character: C0, DEL or C1 (Unicode's {@code Cc}). */
    private static final java.util.regex.Pattern CONTROL = java.util.regex.Pattern.compile("[\\x00-\\x1F\\x7F-\\x9F]");

    /**
     * Validates {@code value} against {@code #/components/schemas/<schemaName>} (a name, or a JSON pointer below
     * {@code #/components/schemas/}); empty when valid.
     */
    public List<ProblemException.FieldError> validate(String schemaName, JsonNode value) {
        JsonSchema schema = schemas.computeIfAbsent(
                schemaName,
                name -> factory.getSchema(SchemaLocation.of(DOCUMENT_IRI + "#/components/schemas/" + name), config));
        List<ProblemException.FieldError> errors = new ArrayList<>();
        schema.validate(value).stream()
                .map(RequestSchemas::fieldError)
                // an error under a name with a control character is reported once, for the object (below)
                .filter(error -> !hasControl(error.name()) && !hasUnpairedSurrogate(error.name()))
                .forEach(errors::add);
        textRules(value, "", errors);
        errors.sort(Comparator.comparing(ProblemException.FieldError::name));
        return List.copyOf(errors);
    }

    static boolean hasControl(String text) {
        return text != null && CONTROL.matcher(text).find();
    }

    /** Whether {@code text} holds a high surrogate without its low one, or a low one without its high one. */
    static boolean hasUnpairedSurrogate(String text) {
        // from the first surrogate on, if any (before it there is nothing to pair)
        for (int i = text == null ? -1 : firstSurrogate(text); i >= 0 && i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return true;
            }
        }
        return false;
    }

    /** The index of the first surrogate of {@code text}, -1 without one (nearly every text: no pair, no stray). */
    private static int firstSurrogate(String text) {
        char[] block = BLOCKS.get();
        for (int from = 0; from < text.length(); from += BLOCK) {
            int to = Math.min(text.length(), from + BLOCK);
            text.getChars(from, to, block, 0);
            for (int i = 0; i < to - from; i++) {
                if (Character.isSurrogate(block[i])) {
                    return from + i;
                }
            }
        }
        return -1;
    }

    /**
     * Texts are scanned a block of characters at a time, copied into the thread's buffer by String.getChars, which
     * copies (and widens) them in bulk: charAt and codePointAt per character were two thirds of a maximal bulk call's
     * validation, itself a third of the call's CPU (JFR, benchmark flood: 4 MB of personalisation text a call).
     */
    static final int BLOCK = 1024;

    private static final ThreadLocal<char[]> BLOCKS = ThreadLocal.withInitial(() -> new char[BLOCK]);

    /**
     * One error per object that has a field name with a control character or an unpaired surrogate, naming the
     * object; one per text value with an unpaired surrogate, naming the value.
     */
    private static void textRules(JsonNode node, String at, List<ProblemException.FieldError> errors) {
        if (node.isTextual() && hasUnpairedSurrogate(node.asText())) {
            errors.add(new ProblemException.FieldError(
                    at.isEmpty() ? "/" : at, "unicode", "Is geen geldige Unicode-tekst (een losse surrogaat)."));
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                textRules(node.get(i), at + "/" + i, errors);
            }
        } else if (node.isObject()) {
            boolean reported = false;
            for (var field : node.properties()) {
                if (!hasControl(field.getKey()) && !hasUnpairedSurrogate(field.getKey())) {
                    textRules(field.getValue(), at + "/" + escape(field.getKey()), errors);
                } else if (!reported) {
                    errors.add(new ProblemException.FieldError(
                            at.isEmpty() ? "/" : at,
                            "propertyNames",
                            "Een veldnaam bevat een stuurteken of een losse surrogaat."));
                    reported = true;
                }
            }
        }
    }

    /**
     * JSON Schema patterns are ECMA-262, where {@code $} ends the input; in java.util.regex (and in Joni's
     * ECMAScript mode) it also matches before a final line break, which would let {@code "X\n"} through
     * {@code ^[\x21-\x7E]+$}. Hand-written because no validator's factory gets this one rule right.
     */
    static RegularExpression ecmaPattern(String pattern) {
        java.util.regex.Matcher oneClass = ONE_CLASS.matcher(pattern);
        if (oneClass.matches()) {
            return ClassRun.of(oneClass.group(1), oneClass.group(2).equals("+"));
        }
        java.util.regex.Pattern compiled = java.util.regex.Pattern.compile(pattern.replaceAll("(?<!\\\\)\\$", "\\\\z"));
        return value -> compiled.matcher(value).find();
    }

    /** {@code ^[…]*$} or {@code ^[…]+$}: one character class over the whole value, the shape of every text rule. */
    private static final java.util.regex.Pattern ONE_CLASS =
            java.util.regex.Pattern.compile("\\^(\\[\\^?(?:[^\\[\\]\\\\]|\\\\.)+\\])([*+])\\$");

    /**
     * A pattern of one character class over the whole value, checked code point by code point against a table the
     * class itself filled once (code points below {@value #TABLE}; the class's own regex above). Same answers as the
     * regex ({@code RequestSchemasTest}); the JDK's matcher walks the class's union of ranges for every character,
     * which was a third of a maximal bulk call's CPU (JFR, benchmark flood: 4 MB of personalisation text a call).
     */
    record ClassRun(java.util.regex.Pattern element, boolean[] table, boolean nonEmpty) implements RegularExpression {

        static final int TABLE = 0x800;

        static ClassRun of(String characterClass, boolean nonEmpty) {
            java.util.regex.Pattern element = java.util.regex.Pattern.compile(characterClass);
            boolean[] table = new boolean[TABLE];
            for (int c = 0; c < TABLE; c++) {
                table[c] = element.matcher(Character.toString(c)).matches();
            }
            return new ClassRun(element, table, nonEmpty);
        }

        @Override
        public boolean matches(String value) {
            if (nonEmpty && value.isEmpty()) {
                return false;
            }
            char[] block = BLOCKS.get();
            // the next character's index in value: after a pair that crossed a block's end, the next block starts there
            int at = 0;
            while (at < value.length()) {
                int from = at;
                int to = Math.min(value.length(), from + BLOCK);
                value.getChars(from, to, block, 0);
                while (at < to) {
                    char c = block[at - from];
                    if (c < TABLE) {
                        if (!table[c]) {
                            return false;
                        }
                        at++;
                    } else {
                        int codePoint = value.codePointAt(at);
                        if (!element.matcher(Character.toString(codePoint)).matches()) {
                            return false;
                        }
                        at += Character.charCount(codePoint);
                    }
                }
            }
            return true;
        }
    }

    private static ProblemException.FieldError fieldError(ValidationMessage message) {
        String at = message.getInstanceLocation().toString();
        String keyword = message.getType();
        String name = switch (keyword) {
            // the missing or unexpected field itself, not the object that lacks or has it
            case "required", "additionalProperties" -> at + "/" + escape(message.getProperty());
            default -> at.isEmpty() ? "/" : at;
        };
        JsonNode schemaNode = message.getSchemaNode();
        JsonNode keywordValue = schemaNode != null && schemaNode.isObject() ? schemaNode.get(keyword) : schemaNode;
        return new ProblemException.FieldError(name, keyword, reason(keyword, keywordValue));
    }

    /** Dutch reasons per keyword, from the schema only: the request's value is never echoed. */
    private static String reason(String keyword, JsonNode keywordValue) {
        String limit = keywordValue == null ? "" : keywordValue.asText();
        return switch (keyword) {
            case "required" -> "Is verplicht.";
            case "additionalProperties" -> "Is geen veld van dit verzoek.";
            case "type" -> "Moet van type " + limit + " zijn.";
            case "nullable" -> "Mag niet null zijn.";
            case "enum" -> "Heeft geen toegestane waarde.";
            case "minLength" -> "Moet minstens " + limit + " tekens lang zijn.";
            case "maxLength" -> "Mag hoogstens " + limit + " tekens lang zijn.";
            case "pattern" -> "Voldoet niet aan het patroon " + limit + ".";
            case "minimum" -> "Moet minstens " + limit + " zijn.";
            case "maximum" -> "Mag hoogstens " + limit + " zijn.";
            case "minProperties" -> "Bevat te weinig velden.";
            case "maxProperties" -> "Bevat te veel velden.";
            case "minItems" -> "Bevat te weinig elementen.";
            case "maxItems" -> "Bevat te veel elementen.";
            case "format" ->
                switch (limit) {
                    case "email" -> "Geen geldig e-mailadres.";
                    case "date-time" -> "Geen geldig tijdstip (RFC 3339, met tijdzone).";
                    case "uuid" -> "Geen geldige UUID.";
                    default -> "Heeft niet het formaat " + limit + ".";
                };
            default -> "Voldoet niet aan het schema (" + keyword + ").";
        };
    }

    private static String escape(String key) {
        return key == null ? "" : key.replace("~", "~0").replace("/", "~1");
    }
}
