package nl.overheid.moz.nmc.flow;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import nl.overheid.moz.nmc.testing.Http;
import nl.overheid.moz.nmc.testing.ManualRunner;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.Test;

/**
 * Placeholders checked at acceptance: the NMC knows each berichttype's template placeholders from NotifyNL
 * ({@code GET /v2/template/{id}}, refreshed by a duty) and refuses a notification that lacks one with a 400 naming
 * it as a JSON pointer under {@code /personalisation}, nothing stored; it never waits for NotifyNL to decide.
 */
class PersonalisationAtAcceptanceTest extends LifecycleTestBase {

    private static final String DECENTRAAL = "/api/nmc/v1/decentraal/notificaties";

    private Http.Response submit(String dvRef, Map<String, String> personalisation) {
        return http.post(
                DECENTRAAL,
                tokenA(),
                Http.json(Map.of(
                        "dvRef",
                        dvRef,
                        "berichttype",
                        TestNmc.BERICHTTYPE,
                        "emailadres",
                        EMAIL,
                        "personalisation",
                        personalisation)));
    }

    private long notifications() {
        return Long.parseLong(query("SELECT count(*) FROM notificatie", null).getFirst());
    }

    /**
     * Found by a hostile read: keys NotifyNL reads as one (its InsensitiveDict: case, spaces, _ and - do not count)
     * were taken, and which value NotifyNL then rendered depended on the order it got them in. A body that means two
     * things is refused rather than guessed at, naming the fields, never their values; whether or not the template
     * is known.
     */
    @Test
    void personalisationKeysNotifyNlReadsAsOneAreRefusedNamingThemAndNothingIsStored() {
        long before = notifications();
        Http.Response refused = submit(
                "DUBBEL",
                new java.util.TreeMap<>(
                        Map.of("naam", "Jansen", "Naam", "Pietersen", "na_am", "de Vries", "tekst", "x")));
        assertThat(refused.status()).as(refused.body()).isEqualTo(400);
        assertThat(refused.json().path("errors").findValuesAsText("name"))
                .containsExactlyInAnyOrder("/personalisation/naam", "/personalisation/Naam", "/personalisation/na_am");
        assertThat(refused.json().path("errors").findValuesAsText("code")).containsOnly("duplicate");
        assertThat(refused.body()).doesNotContain("Jansen", "Pietersen", "de Vries");
        Http.Response bulk = http.post(
                DECENTRAAL + "/bulk",
                tokenA(),
                Http.json(Map.of(
                        "notificaties",
                        List.of(Map.of(
                                "dvRef",
                                "DUBBEL-BULK",
                                "berichttype",
                                TestNmc.BERICHTTYPE,
                                "emailadres",
                                EMAIL,
                                "personalisation",
                                Map.of("dossier nummer", "1", "dossier-nummer", "2"))))));
        assertThat(bulk.status()).as(bulk.body()).isEqualTo(200);
        assertThat(bulk.json().path("resultaten").get(0).path("status").asInt()).isEqualTo(400);
        assertThat(notifications()).isEqualTo(before);
        assertThat(submit("ENKEL", Map.of("naam", "Jansen", "tekst", "x")).status())
                .isEqualTo(202);
    }

    @Test
    void aNotificationWithoutAFieldTheTemplateAsksForIsRefusedNamingTheFieldAndNothingIsStored() {
        notify.template(TestNmc.TEMPLATE_ID, "naam", "dossier nummer");
        ManualRunner.of(nmc).runDutiesOnce();

        Http.Response refused = submit(DV_REF, Map.of("tekst", SECRET_TEXT));
        assertThat(refused.status()).as(refused.body()).isEqualTo(400);
        assertThat(refused.contentType()).startsWith("application/problem+json");
        JsonNode errors = refused.json().path("errors");
        assertThat(errors).hasSize(2);
        assertThat(errors.get(0).path("name").asText())
                .as("in the order NotifyNL lists them, as the template spells them")
                .isEqualTo("/personalisation/naam");
        assertThat(errors.get(1).path("name").asText()).isEqualTo("/personalisation/dossier nummer");
        assertThat(errors.get(0).path("code").asText()).isEqualTo("required");
        assertThat(refused.body())
                .doesNotContain(SECRET_TEXT)
                .doesNotContain(EMAIL)
                .doesNotContain(DV_REF);
        assertThat(notifications()).as("nothing stored").isZero();

        // NotifyNL's matching: case, spaces, underscores and hyphens do not count
        Http.Response accepted = submit(DV_REF, Map.of("Naam", "Jansen", "dossier_nummer", "42"));
        assertThat(accepted.status()).as(accepted.body()).isEqualTo(202);
        assertThat(notifications()).isOne();
    }

    /**
     * The contract: "a 400 lists all validation errors at once". A request that breaks several of acceptance's rules
     * is answered with every one of them, single and as a bulk item, so a DV does not learn them one round trip at a
     * time; nothing is stored.
     */
    @Test
    void everyRuleARequestBreaksIsNamedInOneAnswer() {
        notify.template(TestNmc.TEMPLATE_ID, "naam");
        ManualRunner.of(nmc).runDutiesOnce();
        Map<String, Object> body = Map.of(
                "dvRef",
                DV_REF,
                "berichttype",
                TestNmc.BERICHTTYPE,
                "emailadres",
                EMAIL,
                "geldigTot",
                "2000-01-01T00:00:00Z",
                "personalisation",
                Map.of("Tekst", "a", "tekst", "b"));

        Http.Response refused = http.post(DECENTRAAL, tokenA(), Http.json(body));
        assertThat(refused.status()).as(refused.body()).isEqualTo(400);
        assertThat(refused.json().path("errors").findValuesAsText("name"))
                .containsExactlyInAnyOrder(
                        "/personalisation/Tekst", "/personalisation/tekst", "/personalisation/naam", "/geldigTot");

        Http.Response bulk =
                http.post(DECENTRAAL + "/bulk", tokenA(), Http.json(Map.of("notificaties", List.of(body))));
        assertThat(bulk.status()).as(bulk.body()).isEqualTo(200);
        JsonNode item = bulk.json().path("resultaten").get(0);
        assertThat(item.path("status").asInt()).isEqualTo(400);
        assertThat(item.path("probleem").path("errors").findValuesAsText("name"))
                .containsExactlyInAnyOrder(
                        "/notificaties/0/personalisation/Tekst",
                        "/notificaties/0/personalisation/tekst",
                        "/notificaties/0/personalisation/naam",
                        "/notificaties/0/geldigTot");

        Http.Response centraal = http.post(
                "/api/nmc/v1/centraal/notificaties",
                tokenA(),
                Http.json(Map.of(
                        "dvRef",
                        DV_REF,
                        "berichttype",
                        TestNmc.BERICHTTYPE,
                        "identificatieType",
                        "KVK",
                        "identificatieNummer",
                        "123456789",
                        "geldigTot",
                        "2000-01-01T00:00:00Z",
                        "personalisation",
                        Map.of("naam", "Jansen"))));
        assertThat(centraal.status()).as(centraal.body()).isEqualTo(400);
        assertThat(centraal.json().path("errors").findValuesAsText("name"))
                .containsExactlyInAnyOrder("/geldigTot", "/identificatieNummer");
        assertThat(notifications()).as("nothing stored").isZero();
    }

    @Test
    void aBulkItemWithoutTheFieldIsRefusedOnItsOwn() {
        notify.template(TestNmc.TEMPLATE_ID, "naam");
        ManualRunner.of(nmc).runDutiesOnce();

        Http.Response response = http.post(
                DECENTRAAL + "/bulk",
                tokenA(),
                Http.json(Map.of(
                        "notificaties",
                        List.of(
                                Map.of(
                                        "dvRef",
                                        "BULK-1",
                                        "berichttype",
                                        TestNmc.BERICHTTYPE,
                                        "emailadres",
                                        EMAIL,
                                        "personalisation",
                                        Map.of("naam", "Jansen")),
                                Map.of("dvRef", "BULK-2", "berichttype", TestNmc.BERICHTTYPE, "emailadres", EMAIL)))));
        assertThat(response.status()).as(response.body()).isEqualTo(200);
        JsonNode results = response.json().path("resultaten");
        assertThat(results.get(0).path("status").asInt()).isEqualTo(202);
        assertThat(results.get(1).path("status").asInt()).isEqualTo(400);
        assertThat(results.get(1)
                        .path("probleem")
                        .path("errors")
                        .get(0)
                        .path("name")
                        .asText())
                .isEqualTo("/notificaties/1/personalisation/naam");
        assertThat(notifications()).isOne();
    }

    @Test
    void aTemplateNotKnownYetOrNotifyNlUnreachableIsNotWaitedFor() {
        // nothing fetched yet: accepted
        assertThat(submit("EERST", Map.of()).status()).isEqualTo(202);

        // NotifyNL cannot be reached when the duty asks: still accepted, and acceptance never called NotifyNL
        notify.server()
                .stubFor(get(urlPathMatching("/v2/template/.+"))
                        .atPriority(1)
                        .willReturn(aResponse().withStatus(503)));
        ManualRunner.of(nmc).runDutiesOnce();
        notify.server().resetRequests();
        assertThat(submit("TWEEDE", Map.of()).status()).isEqualTo(202);
        assertThat(notify.server().findAll(getRequestedFor(urlPathMatching("/v2/template/.+"))))
                .as("acceptance does not wait for NotifyNL")
                .isEmpty();
    }

    @Test
    void aTemplateNotifyNlDoesNotKnowIsNotCheckedItsSendsAreParkedInstead() {
        notify.server()
                .stubFor(get(urlPathEqualTo("/v2/template/" + TestNmc.TEMPLATE_ID))
                        .atPriority(1)
                        .willReturn(aResponse()
                                .withStatus(404)
                                .withHeader("Content-Type", "application/json")
                                .withBody("{\"errors\":[{\"error\":\"NoResultFound\",\"message\":\"No result found\"}],"
                                        + "\"status_code\":404}")));
        ManualRunner.of(nmc).runDutiesOnce();
        assertThat(query(
                        "SELECT CASE WHEN gevonden THEN 'ja' ELSE 'nee' END FROM sjabloon WHERE template_id = ?",
                        UUID.fromString(TestNmc.TEMPLATE_ID)))
                .containsExactly("nee");
        assertThat(submit(DV_REF, Map.of()).status()).isEqualTo(202);
    }

    @Test
    void theDutyAsksAgainAfterTheRefreshIntervalAndATemplateChangeReachesAcceptance() {
        ManualRunner.of(nmc).runDutiesOnce();
        assertThat(submit("VOOR", Map.of()).status()).isEqualTo(202);
        notify.template(TestNmc.TEMPLATE_ID, "naam");

        clock.advance(Duration.ofMinutes(5));
        ManualRunner.of(nmc).runDutiesOnce();
        assertThat(submit("BINNEN-INTERVAL", Map.of()).status())
                .as("within notifynl.template-refresh-interval (PT15M) the known placeholders stand")
                .isEqualTo(202);

        clock.advance(Duration.ofMinutes(11));
        ManualRunner.of(nmc).runDutiesOnce();
        clock.advance(Duration.ofSeconds(6)); // register.cache-ttl
        assertThat(submit("NA-INTERVAL", Map.of()).status()).isEqualTo(400);
    }

    @Test
    void aRepeatOfAnAcceptedRequestStillGetsItsNotificationAfterTheTemplateChanged() {
        Http.Response first = submit(DV_REF, Map.of("tekst", "x"));
        assertThat(first.status()).isEqualTo(202);
        notify.template(TestNmc.TEMPLATE_ID, "naam");
        ManualRunner.of(nmc).runDutiesOnce();

        Http.Response repeat = submit(DV_REF, Map.of("tekst", "x"));
        assertThat(repeat.status()).as(repeat.body()).isEqualTo(202);
        assertThat(repeat.json().path("id").asText())
                .isEqualTo(first.json().path("id").asText());
        assertThat(submit("NIEUW", Map.of("tekst", "x")).status()).isEqualTo(400);
        assertThat(UUID.fromString(first.json().path("id").asText())).isNotNull();
    }
}
