package nl.overheid.moz.nmc.simulator;

import com.github.tomakehurst.wiremock.extension.Parameters;
import com.github.tomakehurst.wiremock.http.Request;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code POST /api/profielservice/v1/partij} ({@code getPartij}), as the real service's {@code ProfielController}
 * and {@code PartijService} answer it: the body {@code PartijRequest} read by {@link ProfielRequests}; 200
 * {@code application/json} {@code PartijResponse} for an active party with exactly this identification, its
 * entries narrowed by {@code dienstverlener} and {@code dienstNaam} ({@link ProfielRegistry#matches}); for an
 * unknown or soft-deleted party 404 {@code application/problem+json}
 * {@code {"status":404,"title":"Partij niet gevonden","detail":"Geen partij gevonden voor het opgegeven
 * identificatienummer.","instance":"/api/profielservice/v1/partij"}}. Changes nothing. It produces
 * {@code application/json} and {@code application/problem+json}, so an {@code Accept} of either (or a wildcard)
 * is served.
 *
 * <p>A stub may set the transformer parameter {@value #UNFILTERED} to {@code true}: the answer then lists every
 * active entry whatever the filter asks, a fault the real service does not have (see
 * {@link ProfielserviceSimulator#unfiltered()}).
 */
final class PartijEndpoint extends ProfielEndpoint {

    static final String UNFILTERED = "unfiltered";
    static final String NOT_FOUND_TITLE = "Partij niet gevonden";
    static final String NOT_FOUND_DETAIL = "Geen partij gevonden voor het opgegeven identificatienummer.";

    PartijEndpoint(ProfielContext context) {
        super(context, ProfielserviceSimulator.PARTIJ_TRANSFORMER, "getPartij");
    }

    @Override
    Answer handle(Request request, String path, Parameters parameters) {
        Optional<Answer> refused = negotiate(request, path, List.of(APPLICATION_JSON, PROBLEM_JSON));
        if (refused.isPresent()) {
            return refused.get();
        }
        return switch (ProfielRequests.partijRequest(request.getBodyAsString())) {
            case ProfielRequests.Empty ignored -> emptyBody(path);
            case ProfielRequests.Malformed malformed -> malformed(path, malformed);
            case ProfielRequests.Violations violations -> violations(path, violations);
            case ProfielRequests.Valid valid -> {
                boolean unfiltered = Boolean.TRUE.equals(parameters.get(UNFILTERED));
                yield context.registry()
                        .lookup(valid.type(), valid.nummer(), valid.dienstverlener(), valid.dienstNaam(), unfiltered)
                        .map(found -> Answer.json(
                                200,
                                found.json(),
                                "partijId=" + found.partijId() + " contactgegevens="
                                        + found.contactgegevens() + " voorkeuren=" + found.voorkeuren()
                                        + (unfiltered ? " (unfiltered fault)" : "")))
                        .orElseGet(() -> problem(
                                404, NOT_FOUND_TITLE, NOT_FOUND_DETAIL, path, Map.of(), "partij niet gevonden"));
            }
        };
    }

    @Override
    String label(Request request, String path) {
        return "POST /partij";
    }

    /** 400 of the service's {@code RequireBodyReaderInterceptor}. */
    static Answer emptyBody(String path) {
        return problem(400, "Bad Request", "Request body mag niet leeg zijn", path, Map.of(), "empty body");
    }

    /** 400 of the quarkiverse Jackson mappers, {@code field} naming the property when there is one. */
    static Answer malformed(String path, ProfielRequests.Malformed malformed) {
        return problem(
                400,
                "Bad Request",
                "Malformed request body",
                path,
                malformed.field() == null ? Map.of() : Map.of("field", malformed.field()),
                "malformed" + (malformed.field() == null ? "" : " field=" + malformed.field()));
    }

    /** 400 of the quarkiverse {@code ConstraintViolationExceptionMapper}: every violation, no {@code detail}. */
    static Answer violations(String path, ProfielRequests.Violations violations) {
        List<Map<String, Object>> list = violations.violations().stream()
                .map(violation ->
                        JsonText.object("field", violation.field(), "in", "body", "message", violation.message()))
                .toList();
        return problem(
                400,
                "Bad Request",
                null,
                path,
                Map.of("violations", list),
                "violations="
                        + String.join(
                                ",",
                                violations.violations().stream()
                                        .map(ProfielRequests.Violation::field)
                                        .toList()));
    }
}
