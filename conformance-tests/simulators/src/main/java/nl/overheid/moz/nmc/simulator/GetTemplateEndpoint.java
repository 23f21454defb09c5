package nl.overheid.moz.nmc.simulator;

import com.github.tomakehurst.wiremock.http.Request;
import com.github.tomakehurst.wiremock.http.ResponseDefinition;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * {@code GET /v2/template/{template_id}} ({@code get_template_by_id} in {@code app/v2/template/get_template.py}): 200
 * with the {@linkplain NotifyJson#template template}, its raw body and {@code personalisation} (every placeholder,
 * {@code {"required": true}}); an archived template is answered too (only a send says it was deleted). 404
 * {@code NoResultFound} "No result found" for a template the calling service does not have, 400
 * {@code ValidationError} "id is not a valid UUID" for a malformed id. Never rate limited.
 */
final class GetTemplateEndpoint extends NotifyEndpoint {

    private static final String PREFIX = "/v2/template/";

    GetTemplateEndpoint(Simulation simulation) {
        super(simulation, NotifyNlSimulator.GET_TEMPLATE_TRANSFORMER, "GET /v2/template/{id}");
    }

    @Override
    ResponseDefinition handle(ServeEvent serveEvent, Request request, Instant now, NotifyNlSimulator.Service service) {
        String path = path(request);
        Optional<UUID> id =
                path.startsWith(PREFIX) ? NotifyFormats.parseUuid(path.substring(PREFIX.length())) : Optional.empty();
        if (id.isEmpty()) {
            return error(serveEvent, NotifyError.of(400, "ValidationError", "id is not a valid UUID"));
        }
        ServiceState state = simulation.state(service);
        Optional<NotifyNlSimulator.Template> template = state.template(id.get());
        if (template.isEmpty()) {
            return json(
                    serveEvent,
                    404,
                    NotifyError.of(404, "NoResultFound", "No result found").toJson(),
                    "NoResultFound template=" + id.get());
        }
        return json(
                serveEvent,
                200,
                NotifyJson.template(template.get(), simulation.started()),
                "template=" + id.get() + " placeholders="
                        + template.get().placeholders().size());
    }
}
