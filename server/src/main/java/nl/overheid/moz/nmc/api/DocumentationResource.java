package nl.overheid.moz.nmc.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import nl.overheid.moz.nmc.api.generated.dv.DocumentatieService;

/** Serves the DV API's OpenAPI document at its base path (/core/publish-openapi), without auth. */
public final class DocumentationResource extends DocumentatieService {

    private final PublishedDocument document;

    public DocumentationResource(ApiDocuments documents, ObjectMapper mapper) {
        this.document = new PublishedDocument(documents.dv(), documents.dvYaml(), mapper);
    }

    @Override
    protected void handleOpenapiJson(ServerRequest request, ServerResponse response) {
        document.sendJson(response);
    }

    @Override
    protected void handleOpenapiYaml(ServerRequest request, ServerResponse response) {
        document.sendYaml(response);
    }

    @Override
    public void afterStop() {
        // the generated default prints to stdout; the server logs its own shutdown
    }
}
