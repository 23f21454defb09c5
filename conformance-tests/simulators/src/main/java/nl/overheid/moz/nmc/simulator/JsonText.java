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

    /** How a document is written: the keys' order, the separators, and whether non-ASCII is escaped. */
    private record Style(boolean sortKeys, boolean spaced, boolean asciiOnly) {}

    private static final Style PLAIN = new Style(false, false, false);
    /** Flask's {@code jsonify} as NotifyNL answers: keys sorted, compact, {@code ensure_ascii}. */
    private static final Style FLASK = new Style(true, false, true);
    /** Python's {@code json.dumps} defaults, as NotifyNL's callbacks are written: {@code ", "}, {@code ": "}, ASCII. */
    private static final Style DUMPS = new Style(false, true, true);

    /** A parsed document: {@code valid} false when the text is not JSON; {@code value} may be {@code null} (JSON null). */
    record Parsed(boolean valid, Object value) {}

    /** Parses any JSON document (an object, an array, a scalar or null). */
    static Parsed parse(String text) {
        if (text == null || text.isBlank()) {
            return new Parsed(false, null);
        }
        try {
            return new Parsed(true, Json.read(text, Object.class));
        } catch (RuntimeException malformed) {
            return new Parsed(false, null);
        }
    }

    /** Writes maps, iterables, strings, numbers, booleans, UUIDs, instants and {@code null} as JSON text. */
    static String write(Object value) {
        return write(value, PLAIN);
    }

    /** {@link #write} as NotifyNL's API answers: keys sorted at every level, compact, non-ASCII escaped. */
    static String writeFlask(Object value) {
        return write(value, FLASK);
    }

    /** {@link #write} as NotifyNL's callbacks are sent: keys in order, {@code ", "} and {@code ": "}, ASCII only. */
    static String writeDumps(Object value) {
        return write(value, DUMPS);
    }

    private static String write(Object value, Style style) {
        StringBuilder out = new StringBuilder(256);
        append(out, value, style);
        return out.toString();
    }

    private static void append(StringBuilder out, Object value, Style style) {
        switch (value) {
            case null -> out.append("null");
            case String text -> quote(out, text, style);
            case Boolean bool -> out.append(bool);
            case Double number when number.isNaN() || number.isInfinite() -> out.append("null");
            case Float number when number.isNaN() || number.isInfinite() -> out.append("null");
            case Number number -> out.append(number);
            case Map<?, ?> map -> {
                out.append('{');
                Map<?, ?> ordered = style.sortKeys() ? sorted(map) : map;
                Iterator<? extends Map.Entry<?, ?>> entries = ordered.entrySet().iterator();
                while (entries.hasNext()) {
                    Map.Entry<?, ?> entry = entries.next();
                    quote(out, String.valueOf(entry.getKey()), style);
                    out.append(style.spaced() ? ": " : ":");
                    append(out, entry.getValue(), style);
                    if (entries.hasNext()) {
                        out.append(style.spaced() ? ", " : ",");
                    }
                }
                out.append('}');
            }
            case Iterable<?> items -> {
                out.append('[');
                Iterator<?> iterator = items.iterator();
                while (iterator.hasNext()) {
                    append(out, iterator.next(), style);
                    if (iterator.hasNext()) {
                        out.append(style.spaced() ? ", " : ",");
                    }
                }
                out.append(']');
            }
            case UUID id -> quote(out, id.toString(), style);
            case Instant instant -> quote(out, NotifyFormats.timestamp(instant), style);
            default -> quote(out, value.toString(), style);
        }
    }

    private static Map<String, Object> sorted(Map<?, ?> map) {
        Map<String, Object> sorted = new java.util.TreeMap<>();
        map.forEach((key, value) -> sorted.put(String.valueOf(key), value));
        return sorted;
    }

    private static void quote(StringBuilder out, String text, Style style) {
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
                    if (c < 0x20 || c == '\u2028' || c == '\u2029' || style.asciiOnly() && c > 0x7F) {
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
