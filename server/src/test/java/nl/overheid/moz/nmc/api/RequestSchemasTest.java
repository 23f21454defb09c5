package nl.overheid.moz.nmc.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.regex.RegularExpression;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The contracts' patterns of one character class over the whole value are checked by a table instead of the regex
 * ({@link RequestSchemas.ClassRun}); it must answer exactly as the regex does, for every such pattern of every
 * contract and for every kind of text: empty, ASCII, control characters, Latin-1 and above the table, pairs of
 * surrogates and unpaired ones.
 */
class RequestSchemasTest {

    private static final ApiDocuments DOCUMENTS = ApiDocuments.load();
    private static final int[] SOURCES = {
        0x00, 0x09, 0x0A, 0x0D, 0x1F, 0x20, 0x21, 0x24, 0x2D, 0x41, 0x5C, 0x5D, 0x7E, 0x7F, 0x85, 0x9F, 0xA0, 0xE9,
        0x7FF, 0x800, 0x2028, 0xD800, 0xDC00, 0xFEFF, 0xFFFF, 0x1F600
    };

    @Test
    void everyOneClassPatternOfTheContractsAnswersAsItsRegex() {
        List<String> patterns = new ArrayList<>();
        for (JsonNode document : List.of(DOCUMENTS.dv(), DOCUMENTS.operator(), DOCUMENTS.callback())) {
            collect(document, patterns);
        }
        TreeSet<String> oneClass = new TreeSet<>();
        Random random = new Random(20261202);
        for (String pattern : new TreeSet<>(patterns)) {
            RegularExpression checked = RequestSchemas.ecmaPattern(pattern);
            if (!(checked instanceof RequestSchemas.ClassRun)) {
                continue;
            }
            oneClass.add(pattern);
            Pattern regex = Pattern.compile(pattern.replaceAll("(?<!\\\\)\\$", "\\\\z"));
            for (int i = 0; i < 20_000; i++) {
                String text = text(random);
                assertThat(checked.matches(text))
                        .as(
                                "%s on %s",
                                pattern,
                                text.codePoints().mapToObj(Integer::toHexString).toList())
                        .isEqualTo(regex.matcher(text).find());
            }
        }
        // the text rules of the three contracts: refusing control characters, tokens, codes
        assertThat(oneClass).contains("^[^\\x00-\\x1F\\x7F-\\x9F]+$", "^[\\x21-\\x7E]+$", "^[A-Za-z0-9_-]+$");
    }

    /**
     * The table and the surrogate check read a text a block at a time ({@link RequestSchemas#BLOCK}): texts of one to
     * three blocks, with pairs, strays, control characters and others at and across the blocks' ends, answer as the
     * regex, and as a round trip through UTF-8 (which replaces an unpaired surrogate) says.
     */
    @Test
    void textsLongerThanABlockAnswerAsTheRegexAcrossTheBlocksEnds() {
        RegularExpression checked = RequestSchemas.ecmaPattern("^[^\\x00-\\x1F\\x7F-\\x9F]+$");
        assertThat(checked).isInstanceOf(RequestSchemas.ClassRun.class);
        Pattern regex = Pattern.compile("^[^\\x00-\\x1F\\x7F-\\x9F]+\\z");
        String[] specials = {"\ud83d\ude00", "\ud83d", "\ude00", "\u0001", "\u009f", "\u00e9", "\u2028", "\u0800"};
        Random random = new Random(20261203);
        java.util.Map<String, Integer> outcomes = new java.util.TreeMap<>();
        for (int i = 0; i < 3_000; i++) {
            int blocks = 1 + random.nextInt(3);
            StringBuilder text = new StringBuilder("x".repeat(blocks * RequestSchemas.BLOCK + random.nextInt(7) - 3));
            for (int k = random.nextInt(3); k > 0; k--) {
                int at = (1 + random.nextInt(blocks)) * RequestSchemas.BLOCK + random.nextInt(5) - 3;
                text.insert(Math.min(Math.max(at, 0), text.length()), specials[random.nextInt(specials.length)]);
            }
            String value = text.toString();
            boolean matches = checked.matches(value);
            boolean unpaired = RequestSchemas.hasUnpairedSurrogate(value);
            assertThat(matches)
                    .as("pattern at %d", i)
                    .isEqualTo(regex.matcher(value).find());
            assertThat(unpaired)
                    .as("surrogates at %d", i)
                    .isEqualTo(!value.equals(new String(
                            value.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                            java.nio.charset.StandardCharsets.UTF_8)));
            outcomes.merge(matches + "/" + unpaired, 1, Integer::sum);
        }
        // each outcome occurs, so neither check can pass by answering one way
        assertThat(outcomes).containsKeys("true/false", "false/false", "true/true");
    }

    @Test
    void otherPatternsKeepTheirRegex() {
        assertThat(RequestSchemas.ecmaPattern("^[0-9]{8,9}$")).isNotInstanceOf(RequestSchemas.ClassRun.class);
        assertThat(RequestSchemas.ecmaPattern("^[a-z0-9][a-z0-9-]*$")).isNotInstanceOf(RequestSchemas.ClassRun.class);
        // ECMA's $ ends the input: a final line break is refused as well
        assertThat(RequestSchemas.ecmaPattern("^[\\x21-\\x7E]+$").matches("X\n"))
                .isFalse();
        assertThat(RequestSchemas.ecmaPattern("^[0-9]{8,9}$").matches("12345678\n"))
                .isFalse();
    }

    /** Up to 12 code points, each from one of the interesting places or anywhere. */
    private static String text(Random random) {
        StringBuilder text = new StringBuilder();
        int length = random.nextInt(13);
        for (int i = 0; i < length; i++) {
            int c = random.nextInt(4) == 0
                    ? random.nextInt(0x110000)
                    : SOURCES[random.nextInt(SOURCES.length)] + (random.nextBoolean() ? 0 : random.nextInt(3));
            text.appendCodePoint(Math.min(c, Character.MAX_CODE_POINT));
        }
        return text.toString();
    }

    private static void collect(JsonNode node, List<String> patterns) {
        if (node.isObject()) {
            node.properties().forEach(field -> {
                if (field.getKey().equals("pattern") && field.getValue().isTextual()) {
                    patterns.add(field.getValue().asText());
                } else {
                    collect(field.getValue(), patterns);
                }
            });
        } else if (node.isArray()) {
            node.forEach(element -> collect(element, patterns));
        }
    }
}
