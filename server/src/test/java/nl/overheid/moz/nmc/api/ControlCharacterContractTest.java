package nl.overheid.moz.nmc.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every text a client sends, in every contract the NMC serves or reads (the DV API, the operator API, NotifyNL's
 * callback), refuses control characters — C0, DEL and C1 — through its schema, so the request validation answers
 * a 400 naming the field before anything reaches PostgreSQL or a log line. The two texts of several lines keep
 * their line breaks: a personalisation value (TAB, LF, CR) and an operator's toelichting (TAB, LF). A new text
 * field without such a rule fails here.
 */
class ControlCharacterContractTest {

    private static final ApiDocuments DOCUMENTS = ApiDocuments.load();

    /** The controls a multi-line text keeps, per schema location (below {@code #/components/schemas/}). */
    private static final Map<String, String> KEPT = Map.of(
            "Personalisation/additionalProperties", "\t\n\r",
            "ToelichtingTekst", "\t\n");

    @Test
    void everyTextOfEveryRequestBodyRefusesControlCharacters() {
        int checked = 0;
        for (var contract : requestContracts()) {
            JsonNode document = contract.getKey();
            RequestSchemas schemas = contract.getValue();
            for (String component : requestComponents(document)) {
                for (Map.Entry<String, JsonNode> text :
                        texts(component, components(document).get(component))) {
                    String location = text.getKey();
                    JsonNode schema = text.getValue();
                    String sample =
                            schema.has("example") ? schema.get("example").asText() : "ab";
                    if (schema.has("example")) {
                        assertThat(schemas.validate(location, TextNode.valueOf(sample)))
                                .as("the example of %s", location)
                                .isEmpty();
                    }
                    String kept = KEPT.getOrDefault(location, "");
                    for (char c = 0; c <= 0x9F; c = c == 0x1F ? 0x7F : (char) (c + 1)) {
                        String value = sample.substring(0, 1) + c + sample.substring(1);
                        var errors = schemas.validate(location, TextNode.valueOf(value));
                        if (kept.indexOf(c) >= 0) {
                            assertThat(errors)
                                    .as("%s keeps U+%04X", location, (int) c)
                                    .isEmpty();
                        } else {
                            assertThat(errors)
                                    .as("%s refuses U+%04X", location, (int) c)
                                    .isNotEmpty();
                        }
                    }
                    checked++;
                }
            }
        }
        assertThat(checked).as("texts checked").isGreaterThan(20);
    }

    /** Query, path and header parameters are checked by hand in the handlers; their contract says the same. */
    @Test
    void everyTextParameterHasARuleThatRefusesControlCharacters() {
        for (JsonNode document : List.of(DOCUMENTS.dv(), DOCUMENTS.operator(), DOCUMENTS.callback())) {
            for (JsonNode parameter : document.path("components").path("parameters")) {
                JsonNode schema = parameter.path("schema");
                if (!schema.path("type").asText().equals("string") || schema.has("enum")) {
                    continue;
                }
                String name = parameter.path("name").asText();
                if (schema.has("format")) {
                    assertThat(schema.path("format").asText()).as(name).isIn("uuid", "date-time");
                    continue;
                }
                assertThat(schema.has("pattern")).as("%s has a pattern", name).isTrue();
                Pattern pattern =
                        Pattern.compile(schema.path("pattern").asText().replace("$", "\\z"));
                for (char c = 0; c <= 0x9F; c = c == 0x1F ? 0x7F : (char) (c + 1)) {
                    assertThat(pattern.matcher("a" + c + "b").find())
                            .as("%s refuses U+%04X", name, (int) c)
                            .isFalse();
                }
            }
        }
    }

    /** Each contract whose requests the NMC reads (the DV API, the operator API, NotifyNL's callback), with its schemas. */
    static List<Map.Entry<JsonNode, RequestSchemas>> requestContracts() {
        return List.of(
                Map.entry(DOCUMENTS.dv(), DOCUMENTS.dvSchemas()),
                Map.entry(DOCUMENTS.operator(), DOCUMENTS.operatorSchemas()),
                Map.entry(DOCUMENTS.callback(), DOCUMENTS.callbackSchemas()));
    }

    static JsonNode components(JsonNode document) {
        return document.path("components").path("schemas");
    }

    /** The schemas a request body of the document refers to, directly or through other schemas. */
    static Set<String> requestComponents(JsonNode document) {
        Set<String> found = new LinkedHashSet<>();
        Deque<JsonNode> todo = new ArrayDeque<>();
        document.path("paths")
                .forEach(path -> path.forEach(operation -> {
                    if (operation.has("requestBody")) {
                        todo.add(operation.path("requestBody"));
                    }
                }));
        while (!todo.isEmpty()) {
            JsonNode node = todo.pop();
            if (node.isObject() && node.has("$ref")) {
                String name = node.path("$ref").asText().replace("#/components/schemas/", "");
                if (found.add(name)) {
                    todo.add(components(document).path(name));
                }
            }
            node.forEach(todo::add);
        }
        return found;
    }

    /** Every string schema without an enum in {@code schema}, by its location below {@code #/components/schemas/}. */
    private static List<Map.Entry<String, JsonNode>> texts(String location, JsonNode schema) {
        return schemas(location, schema, s -> s.path("type").asText().equals("string") && !s.has("enum"));
    }

    /**
     * Every schema in {@code schema} (itself, its properties, items and additional properties, recursively) that is
     * {@code wanted}, by its location below {@code #/components/schemas/}.
     */
    static List<Map.Entry<String, JsonNode>> schemas(
            String location, JsonNode schema, java.util.function.Predicate<JsonNode> wanted) {
        List<Map.Entry<String, JsonNode>> found = new java.util.ArrayList<>();
        if (wanted.test(schema)) {
            found.add(Map.entry(location, schema));
        }
        schema.path("properties")
                .properties()
                .forEach(property -> found.addAll(
                        schemas(location + "/properties/" + property.getKey(), property.getValue(), wanted)));
        if (schema.path("items").isObject()) {
            found.addAll(schemas(location + "/items", schema.path("items"), wanted));
        }
        if (schema.path("additionalProperties").isObject()) {
            found.addAll(schemas(location + "/additionalProperties", schema.path("additionalProperties"), wanted));
        }
        return found;
    }
}
