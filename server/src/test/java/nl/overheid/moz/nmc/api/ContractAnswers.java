package nl.overheid.moz.nmc.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Locale;

/**
 * Whether an answer is one the published contract allows for its operation: a status the operation documents, and
 * a body valid against the schema the contract gives for that status and media type (validated with the same
 * networknt dialect as the requests, {@link RequestSchemas}).
 */
public final class ContractAnswers {

    private final JsonNode document;
    private final RequestSchemas schemas;

    private ContractAnswers(JsonNode document, RequestSchemas schemas) {
        this.document = document;
        this.schemas = schemas;
    }

    public static ContractAnswers dv() {
        ApiDocuments documents = ApiDocuments.load();
        return new ContractAnswers(documents.dv(), documents.dvSchemas());
    }

    static ContractAnswers callback() {
        ApiDocuments documents = ApiDocuments.load();
        return new ContractAnswers(documents.callback(), documents.callbackSchemas());
    }

    /** Checks an answer to {@code method} on the contract's {@code path} (a template, e.g. {@code /notificaties}). */
    public void check(String what, String method, String path, int status, String contentType, JsonNode body) {
        JsonNode responses = document.path("paths")
                .path(path)
                .path(method.toLowerCase(Locale.ROOT))
                .path("responses");
        assertThat(responses.isObject())
                .as("%s: %s %s is in the contract", what, method, path)
                .isTrue();
        JsonNode response = responses.path(Integer.toString(status));
        assertThat(response.isMissingNode())
                .as("%s: %s %s documents %d (body %s)", what, method, path, status, body)
                .isFalse();
        response = resolve(response);
        if (body == null) {
            return;
        }
        String mediaType = contentType.split(";")[0].trim();
        JsonNode schema = response.path("content").path(mediaType).path("schema");
        assertThat(schema.isMissingNode())
                .as("%s: %d answers with %s as the contract says", what, status, mediaType)
                .isFalse();
        String ref = schema.path("$ref").asText();
        if (ref.startsWith("#/components/schemas/")) {
            assertThat(schemas.validate(ref.substring("#/components/schemas/".length()), body))
                    .as("%s: the %d body against %s: %s", what, status, ref, body)
                    .isEmpty();
        }
    }

    private JsonNode resolve(JsonNode node) {
        String ref = node.path("$ref").asText();
        if (ref.startsWith("#/components/responses/")) {
            return document.path("components")
                    .path("responses")
                    .path(ref.substring("#/components/responses/".length()));
        }
        return node;
    }
}
