package nl.overheid.moz.nmc.simulator;

import com.github.tomakehurst.wiremock.common.Json;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The small amount of JSON the simulator needs: writing ordered documents by hand (so the output does not
 * depend on any serializer's null or ordering settings) and reading request bodies through WireMock's public
 * {@link Json} helper (never through the Jackson classes WireMock shades).
 */
final class JsonText {

    private JsonText() {}

    /**
     * An ordered JSON object from alternating keys and values; values may be {@code null}.
     *
     * @param keysAndValues {@code key1, value1, key2, value2, …}
     * @return a mutable, insertion-ordered map
     */
    static Map<String, Object> object(Object... keysAndValues) {
        if (keysAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("keys and values must come in pairs");
        }
        Map<String, Object> object = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            object.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return object;
    }

    /**
     * Parses a JSON object.
     *
     * @return the object, or empty when the text is not a JSON object (malformed, an array, a scalar, null)
     */
    @SuppressWarnings("unchecked")
    static Optional<Map<String, Object>> parseObject(String text) {
        if (text == null || text.isBlank()) {
            return Optional.empty();
        }
        try {
            Object value = Json.read(text, Object.class);
            return value instanceof Map<?, ?> map ? Optional.of((Map<String, Object>) map) : Optional.empty();
        } catch (RuntimeException malformed) {
            return Optional.empty();
        }
    }

    /** Writes maps, iterables, strings, numbers, booleans, UUIDs, instants and {@code null} as JSON text. */
    static String write(Object value) {
        StringBuilder out = new StringBuilder(256);
        append(out, value);
        return out.toString();
    }

    private static void append(StringBuilder out, Object value) {
        switch (value) {
            case null -> out.append("null");
            case String text -> quote(out, text);
            case Boolean bool -> out.append(bool);
            case Double number when number.isNaN() || number.isInfinite() -> out.append("null");
            case Float number when number.isNaN() || number.isInfinite() -> out.append("null");
            case Number number -> out.append(number);
            case Map<?, ?> map -> {
                out.append('{');
                Iterator<? extends Map.Entry<?, ?>> entries = map.entrySet().iterator();
                while (entries.hasNext()) {
                    Map.Entry<?, ?> entry = entries.next();
                    quote(out, String.valueOf(entry.getKey()));
                    out.append(':');
                    append(out, entry.getValue());
                    if (entries.hasNext()) {
                        out.append(',');
                    }
                }
                out.append('}');
            }
            case Iterable<?> items -> {
                out.append('[');
                Iterator<?> iterator = items.iterator();
                while (iterator.hasNext()) {
                    append(out, iterator.next());
                    if (iterator.hasNext()) {
                        out.append(',');
                    }
                }
                out.append(']');
            }
            case UUID id -> quote(out, id.toString());
            case Instant instant -> quote(out, NotifyFormats.timestamp(instant));
            default -> quote(out, value.toString());
        }
    }

    private static void quote(StringBuilder out, String text) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    if (c < 0x20 || c == '\u2028' || c == '\u2029') {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
