package nl.overheid.moz.nmc.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.helidon.common.media.type.MediaTypes;
import io.helidon.http.HeaderNames;
import io.helidon.http.HttpMediaType;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.nio.charset.StandardCharsets;
import nl.overheid.moz.nmc.api.generated.beheer.DocumentatieService;

/** Serves the operator API's OpenAPI document at its base path (/core/publish-openapi), without auth. */
public final class BeheerDocumentatieResource extends DocumentatieService {

    private static final HttpMediaType YAML = HttpMediaType.create("application/yaml");

    private final byte[] json;
    private final byte[] yaml;

    public BeheerDocumentatieResource(ApiDocuments documents, ObjectMapper mapper) {
        try {
            this.json = mapper.writeValueAsString(documents.operator()).getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        this.yaml = documents.operatorYaml().getBytes(StandardCharsets.UTF_8);
    }

    @Override
    protected void handleOpenapiJson(ServerRequest request, ServerResponse response) {
        response.header(HeaderNames.ACCESS_CONTROL_ALLOW_ORIGIN, "*");
        response.headers().contentType(MediaTypes.APPLICATION_JSON);
        response.send(json);
    }

    @Override
    protected void handleOpenapiYaml(ServerRequest request, ServerResponse response) {
        response.header(HeaderNames.ACCESS_CONTROL_ALLOW_ORIGIN, "*");
        response.headers().contentType(YAML);
        response.send(yaml);
    }

    @Override
    public void afterStop() {
        // the generated default prints to stdout; the server logs its own shutdown
    }
}
