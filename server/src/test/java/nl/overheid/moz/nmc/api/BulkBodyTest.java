package nl.overheid.moz.nmc.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

/**
 * The bulk body read item by item answers exactly as the whole tree does ({@code readTree} of the mapper request
 * bodies are read with, {@link JsonBodies#strict}, then the envelope's rules): the same refusals with the same errors,
 * the same items. Held against the tree on bodies a seeded generator spoils in every way that matters to a reader that
 * hands out items before the end: a fault after the list, a name given twice, malformed UTF-8 in the last item, a
 * cut-off body, content after the object.
 */
class BulkBodyTest {

    private static final ObjectMapper MAPPER = JsonBodies.strict(new ObjectMapper());
    private static final int MAX = 5;

    private static byte[] bytes(String body) {
        return body.getBytes(StandardCharsets.UTF_8);
    }

    private static List<String> errorNames(ProblemException problem) {
        return problem.errors().stream().map(ProblemException.FieldError::name).toList();
    }

    private static List<JsonNode> items(BulkBody body) {
        return StreamSupport.stream(body.spliterator(), false).toList();
    }

    @Test
    void handsOutTheItemsOfTheListInOrderEachParsedWhole() {
        BulkBody body =
                BulkBody.of(MAPPER, bytes("{\"notificaties\":[{\"a\":[1,{\"b\":\"é\"}]},\"x\",null,2.5e3]} \n"), MAX);

        assertThat(body.size()).isEqualTo(4);
        assertThat(items(body).stream().map(JsonNode::toString))
                .containsExactly("{\"a\":[1,{\"b\":\"é\"}]}", "\"x\"", "null", "2500.0");
        assertThat(items(body)).as("handed out again from the start").hasSize(4);
    }

    @Test
    void aFaultAfterTheListRefusesTheWholeBodyBeforeAnyItemIsHandedOut() {
        String items = "[{\"dvRef\":\"A\"},{\"dvRef\":\"B\"}]";
        assertThatThrownBy(() -> BulkBody.of(MAPPER, bytes("{\"notificaties\":" + items + ",\"extra\":1}"), MAX))
                .isInstanceOfSatisfying(
                        ProblemException.class, p -> assertThat(errorNames(p)).containsExactly("/extra"));
        assertThatThrownBy(() -> BulkBody.of(MAPPER, bytes("{\"notificaties\":" + items + ",\"extra\":"), MAX))
                .isInstanceOfSatisfying(
                        ProblemException.class, p -> assertThat(errorNames(p)).containsExactly("/"));
        ByteArrayOutputStream malformed = new ByteArrayOutputStream();
        malformed.writeBytes(bytes("{\"notificaties\":[{\"dvRef\":\"A\"},{\"dvRef\":\""));
        malformed.write(0xC3); // a lead byte without its continuation
        malformed.writeBytes(bytes("(\"}]}"));
        assertThatThrownBy(() -> BulkBody.of(MAPPER, malformed.toByteArray(), MAX))
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        p -> assertThat(p.errors())
                                .extracting(ProblemException.FieldError::code)
                                .containsExactly("syntax"));
    }

    @Test
    void aNameGivenTwiceOrContentAfterTheBodyIsASyntaxErrorWhateverTheMapper() {
        ObjectMapper lenient = new ObjectMapper();
        for (String body : List.of(
                "{\"notificaties\":[1,2,3],\"notificaties\":[{\"dvRef\":\"L\"}]}",
                "{\"notificaties\":[{\"dvRef\":\"A\",\"dvRef\":\"B\"}]}",
                "{\"notificaties\":[{\"dvRef\":\"A\"}]} xx",
                "{\"notificaties\":[{\"dvRef\":\"A\"}]}{\"notificaties\":[{\"dvRef\":\"B\"}]}",
                "[1] 2")) {
            for (ObjectMapper mapper : List.of(MAPPER, lenient)) {
                assertThatThrownBy(() -> BulkBody.of(mapper, bytes(body), MAX))
                        .as(body)
                        .isInstanceOfSatisfying(
                                ProblemException.class,
                                p -> assertThat(p.errors())
                                        .extracting(
                                                ProblemException.FieldError::name, ProblemException.FieldError::code)
                                        .containsExactly(org.assertj.core.groups.Tuple.tuple("/", "syntax")));
            }
        }
    }

    /** Seeded: the same bodies on every run; a failure names its seed and body. */
    @Test
    void answersAsTheWholeTreeDidOnSpoiledBodies() {
        Random random = new Random(20261202L);
        String[] pieces = {
            "{",
            "}",
            "[",
            "]",
            ",",
            ":",
            "\"notificaties\"",
            "\"extra\"",
            "\"x\\u0000\"",
            "1",
            "-0.5e2",
            "null",
            "true",
            "\"é\"",
            "\"\\ud800\"",
            "{\"dvRef\":\"A\"}",
            " ",
            "\"",
            "\\",
            "01",
            "1e999999"
        };
        int checked = 0;
        for (int n = 0; n < 4000; n++) {
            StringBuilder list = new StringBuilder("[");
            int size = random.nextInt(MAX + 3);
            for (int i = 0; i < size; i++) {
                list.append(i == 0 ? "" : ",")
                        .append("{\"dvRef\":\"R")
                        .append(i)
                        .append("\"}");
            }
            list.append(']');
            String valid = random.nextInt(4) == 0
                    ? "{\"notificaties\":" + list + ",\"notificaties\":" + list + "}"
                    : "{\"notificaties\":" + list + "}";
            StringBuilder spoiled = new StringBuilder(valid);
            int changes = random.nextInt(3);
            for (int c = 0; c < changes; c++) {
                int at = random.nextInt(spoiled.length() + 1);
                switch (random.nextInt(3)) {
                    case 0 -> spoiled.insert(at, pieces[random.nextInt(pieces.length)]);
                    case 1 -> spoiled.delete(at, Math.min(spoiled.length(), at + 1 + random.nextInt(4)));
                    default -> spoiled.setLength(at);
                }
            }
            byte[] body = bytes(spoiled.toString());
            if (random.nextInt(10) == 0 && body.length > 2) {
                body[random.nextInt(body.length)] = (byte) (0x80 + random.nextInt(0x80)); // malformed UTF-8, maybe
            }
            assertSameAsTheTree(body);
            checked++;
        }
        assertThat(checked).isEqualTo(4000);
    }

    /** The verdict of the tree (the code before the item-by-item reader) against the reader's. */
    private static void assertSameAsTheTree(byte[] body) {
        String shown = new String(body, StandardCharsets.UTF_8);
        List<String> expectedErrors = null;
        List<String> expectedItems = null;
        JsonNode tree;
        try {
            tree = MAPPER.readTree(body);
        } catch (IOException e) {
            tree = null;
        }
        if (tree == null || tree.isMissingNode()) {
            expectedErrors = List.of("/:syntax");
        } else if (!tree.isObject()) {
            expectedErrors = List.of("/:type");
        } else {
            List<String> errors = new ArrayList<>();
            tree.fieldNames().forEachRemaining(name -> {
                if (RequestSchemas.hasControl(name) || RequestSchemas.hasUnpairedSurrogate(name)) {
                    errors.add("/:propertyNames");
                } else if (!name.equals("notificaties")) {
                    errors.add("/" + name.replace("~", "~0").replace("/", "~1") + ":additionalProperties");
                }
            });
            JsonNode items = tree.path("notificaties");
            if (items.isMissingNode()) {
                errors.add("/notificaties:required");
            } else if (!items.isArray()) {
                errors.add("/notificaties:type");
            } else if (items.isEmpty() || items.size() > MAX) {
                errors.add("/notificaties:" + (items.isEmpty() ? "minItems" : "maxItems"));
            }
            if (errors.isEmpty()) {
                expectedItems = new ArrayList<>();
                for (JsonNode item : items) {
                    expectedItems.add(item.toString());
                }
            } else {
                expectedErrors = errors;
            }
        }
        try {
            BulkBody read = BulkBody.of(MAPPER, body, MAX);
            assertThat(expectedErrors)
                    .as("refused by the tree, taken by the reader: %s", shown)
                    .isNull();
            assertThat(items(read).stream().map(JsonNode::toString).toList())
                    .as(shown)
                    .isEqualTo(expectedItems);
        } catch (ProblemException refused) {
            assertThat(refused.errors().stream()
                            .map(e -> e.name() + ":" + e.code())
                            .toList())
                    .as(shown)
                    .isEqualTo(expectedErrors);
        }
    }
}
