package nl.overheid.moz.nmc.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.helidon.common.media.type.MediaTypes;
import io.helidon.http.HeaderNames;
import io.helidon.http.HttpMediaType;
import io.helidon.webserver.http.ServerResponse;
import java.nio.charset.StandardCharsets;

/**
 * One published OpenAPI document (/core/publish-openapi) as JSON and as YAML, rendered once at start-up and
 * served without authentication by the DV API's and the operator API's documentation resources.
 */
final class PublishedDocument {

    private static final HttpMediaType YAML = HttpMediaType.create("application/yaml");

    private final byte[] json;
    private final byte[] yaml;

    PublishedDocument(JsonNode document, String yamlText, ObjectMapper mapper) {
        try {
            this.json = mapper.writeValueAsString(document).getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        this.yaml = yamlText.getBytes(StandardCharsets.UTF_8);
    }

    void sendJson(ServerResponse response) {
        response.header(HeaderNames.ACCESS_CONTROL_ALLOW_ORIGIN, "*");
        response.headers().contentType(MediaTypes.APPLICATION_JSON);
        response.send(json);
    }

    void sendYaml(ServerResponse response) {
        response.header(HeaderNames.ACCESS_CONTROL_ALLOW_ORIGIN, "*");
        response.headers().contentType(YAML);
        response.send(yaml);
    }
}
