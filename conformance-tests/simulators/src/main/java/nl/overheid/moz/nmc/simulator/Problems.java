package nl.overheid.moz.nmc.simulator;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import java.util.List;

/**
 * RFC 9457 problem details as the Profielservice and LDV contracts declare them:
 * {@code {type, title, status, detail}} and for a 400 also {@code errors: [{name, code, reason}]}, served as
 * {@code application/problem+json} with the {@code API-Version} header. Details never repeat a request value.
 */
final class Problems {

    static final String PROBLEM_JSON = "application/problem+json";
    static final String ABOUT_BLANK = "about:blank";

    private Problems() {}

    /** The problem document; {@code errors} is left out when empty. */
    static String json(String type, String title, int status, String detail, List<FieldError> errors) {
        var document = JsonText.object("type", type, "title", title, "status", status, "detail", detail);
        if (!errors.isEmpty()) {
            document.put(
                    "errors",
                    errors.stream()
                            .map(error -> JsonText.object(
                                    "name", error.name(), "code", error.code(), "reason", error.reason()))
                            .toList());
        }
        return JsonText.write(document);
    }

    /** A complete problem response for a test's fault stub. */
    static ResponseDefinitionBuilder response(String apiVersion, int status, String type, String title, String detail) {
        return aResponse()
                .withStatus(status)
                .withHeader("Content-Type", PROBLEM_JSON)
                .withHeader("API-Version", apiVersion)
                .withBody(json(type, title, status, detail, List.of()));
    }

    /** "Het verzoek bevat 1 fout." / "Het verzoek bevat 3 fouten." */
    static String countDetail(int errors) {
        return "Het verzoek bevat " + errors + (errors == 1 ? " fout." : " fouten.");
    }
}
