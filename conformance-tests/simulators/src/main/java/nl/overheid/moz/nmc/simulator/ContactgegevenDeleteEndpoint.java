package nl.overheid.moz.nmc.simulator;

import com.github.tomakehurst.wiremock.extension.Parameters;
import com.github.tomakehurst.wiremock.http.Request;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * {@code DELETE /api/profielservice/v1/contactgegeven/{contactgegevenId}} ({@code verwijderContactgegeven}), as
 * the real service answers it (research notes §3.1, §3.6, §3.9): the body {@code PartijIdentificatieRequest}
 * names the party; 204 without a body when the party's active contactgegeven with that id is soft-deleted (and
 * the party with it when that was its last active contactgegeven or voorkeur); otherwise, for an unknown or
 * deleted party, an unknown id, an id of another party or an id deleted before, 404
 * {@code {"status":404,"title":"Contactgegeven niet gevonden","detail":"Contactgegeven of partij niet gevonden.",
 * "instance":"<path>"}}. The operation has no JSON success body, so it produces only
 * {@code application/problem+json}: {@code Accept: application/json} alone is 406.
 *
 * <p>A path id that is not a UUID in canonical form is 404 {@code {"status":404,"title":"Not Found"}} (the
 * service's JAX-RS parameter conversion fails), before the body is read; the simulator leaves {@code instance}
 * out there so that nothing the caller put in the path comes back. Every delete with a valid body is recorded
 * as a {@link ProfielserviceSimulator.Delete}, whatever its answer.
 */
final class ContactgegevenDeleteEndpoint extends ProfielEndpoint {

    static final String NOT_FOUND_TITLE = "Contactgegeven niet gevonden";
    static final String NOT_FOUND_DETAIL = "Contactgegeven of partij niet gevonden.";

    ContactgegevenDeleteEndpoint(ProfielContext context) {
        super(context, ProfielserviceSimulator.DELETE_TRANSFORMER, "verwijderContactgegeven");
    }

    @Override
    Answer handle(Request request, String path, Parameters parameters) {
        Optional<Answer> refused = negotiate(request, path, List.of(PROBLEM_JSON));
        if (refused.isPresent()) {
            return refused.get();
        }
        String idText = idText(path);
        if (!FscOutway.isUuid(idText)) {
            return problem(404, "Not Found", null, null, Map.of(), "contactgegevenId is not a UUID");
        }
        UUID id = UUID.fromString(idText);
        return switch (ProfielRequests.identificatieRequest(request.getBodyAsString())) {
            case ProfielRequests.Empty ignored -> PartijEndpoint.emptyBody(path);
            case ProfielRequests.Malformed malformed -> PartijEndpoint.malformed(path, malformed);
            case ProfielRequests.Violations violations -> PartijEndpoint.violations(path, violations);
            case ProfielRequests.Valid valid -> {
                Answer answer = switch (context.registry().delete(valid.type(), valid.nummer(), id)) {
                    case NOT_FOUND ->
                        problem(404, NOT_FOUND_TITLE, NOT_FOUND_DETAIL, path, Map.of(), "contactgegeven niet gevonden");
                    case DELETED -> Answer.noContent("soft-deleted");
                    case DELETED_WITH_PARTY ->
                        Answer.noContent("soft-deleted, the party's last child: partij soft-deleted");
                };
                context.addDelete(new ProfielserviceSimulator.Delete(
                        id,
                        valid.type(),
                        valid.nummer(),
                        answer.status(),
                        context.clock().instant()));
                yield answer;
            }
        };
    }

    @Override
    String label(Request request, String path) {
        String idText = idText(path);
        return "DELETE /contactgegeven/" + (FscOutway.isUuid(idText) ? idText : "(not a uuid)");
    }

    private static String idText(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }
}
