package nl.overheid.moz.nmc.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import nl.overheid.moz.nmc.Nmc;
import nl.overheid.moz.nmc.testing.Http;
import nl.overheid.moz.nmc.testing.MutableClock;
import nl.overheid.moz.nmc.testing.PartiesStub;
import nl.overheid.moz.nmc.testing.TestDatabase;
import nl.overheid.moz.nmc.testing.TestIam;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Unhappy paths first: every bad request gets an RFC 9457 problem with the right status, lists all its
 * errors at once, carries API-Version, never echoes the input, and stores nothing.
 */
class DvApiBadInputTest {

    private static final String DECENTRAAL = "/api/nmc/v1/decentraal/notificaties";
    private static final String CENTRAAL = "/api/nmc/v1/centraal/notificaties";
    private static final TestDatabase DB = TestDatabase.get();
    private static final TestIam IAM = new TestIam();
    private static PartiesStub notify;
    private static Nmc nmc;
    private static Http http;
    private static String token;

    @BeforeAll
    static void start() {
        DB.reset();
        notify = new PartiesStub();
        nmc = TestNmc.start(DB, IAM, notify.baseUrl(), MutableClock.startingNow());
        http = Http.of(nmc);
        token = IAM.token(TestNmc.DV_A);
    }

    @AfterAll
    static void stop() {
        nmc.close();
        notify.close();
    }

    @AfterEach
    void nothingWasStored() throws SQLException {
        assertThat(count("notificatie")).isZero();
        assertThat(count("taak")).isZero();
        assertThat(count("event")).isZero();
    }

    private static String valid(Map<String, Object> overrides) {
        Map<String, Object> body = new java.util.LinkedHashMap<>(Map.of(
                "dvRef",
                "REF-1",
                "berichttype",
                TestNmc.BERICHTTYPE,
                "emailadres",
                "ontvanger@example.nl",
                "personalisation",
                Map.of("naam", "Bedrijf BV")));
        body.putAll(overrides);
        body.values().removeIf(java.util.Objects::isNull);
        return Http.json(body);
    }

    @Test
    void malformedJsonIsA400() {
        Http.Response response = http.post(DECENTRAAL, token, "{\"dvRef\": \"REF-1\",");
        assertProblem(response, 400);
        assertThat(errorNames(response)).containsExactly("/");
    }

    /**
     * Found from outside, against a local run: a valid notification followed by more content ({@code {..} xx}, or a
     * second object) was taken as the first, and of a field named twice the last counted. A body that can be read as
     * two requests is refused whole, single and bulk alike, and so is NotifyNL's callback.
     */
    @Test
    void aBodyWithContentAfterItOrAFieldNamedTwiceIsA400() {
        String one = valid(Map.of());
        String named = one.replaceFirst("\\{", "{\"dvRef\":\"REF-0\",");
        for (String single : List.of(one + " xx", one + one, one + "]", named)) {
            Http.Response response = http.post(DECENTRAAL, token, single);
            assertProblem(response, 400);
            assertThat(response.json().path("errors").get(0).path("code").asText())
                    .as(single)
                    .isEqualTo("syntax");
            assertThat(errorNames(response)).as(single).containsExactly("/");
        }
        for (String bulk : List.of(
                "{\"notificaties\":[" + one + "]} xx",
                "{\"notificaties\":[" + one + "]}{}",
                "{\"notificaties\":[" + named + "]}",
                "{\"notificaties\":[],\"notificaties\":[" + one + "]}")) {
            Http.Response response = http.post(DECENTRAAL + "/bulk", token, bulk);
            assertProblem(response, 400);
            assertThat(errorNames(response)).as(bulk).containsExactly("/");
        }
        String receipt = "{\"id\":\"" + java.util.UUID.randomUUID() + "\",\"status\":\"delivered\"}";
        for (String callback : List.of(receipt + " xx", receipt.replace("{", "{\"status\":\"permanent-failure\","))) {
            Http.Response response = http.post("/api/nmc/v1/notifynl-callback", TestNmc.CALLBACK_TOKEN, callback);
            assertCallbackProblem(response, 400);
            assertThat(errorNames(response)).as(callback).containsExactly("/");
        }
    }

    @Test
    void allMissingAndWronglyTypedFieldsAreListedAtOnce() {
        Http.Response response = http.post(
                DECENTRAAL,
                token,
                "{\"berichttype\": 42, \"personalisation\": {\"naam\": 7}, \"geldigTot\": \"morgen\", \"extra\": true}");
        assertProblem(response, 400);
        assertThat(errorNames(response))
                .containsExactlyInAnyOrder(
                        "/dvRef", "/emailadres", "/berichttype", "/personalisation/naam", "/geldigTot", "/extra");
    }

    @Test
    void anInvalidEmailAddressIsA400ThatDoesNotEchoTheAddress() {
        Http.Response response = http.post(DECENTRAAL, token, valid(Map.of("emailadres", "geen-adres@@voorbeeld")));
        assertProblem(response, 400);
        assertThat(errorNames(response)).containsExactly("/emailadres");
        assertThat(response.body()).doesNotContain("geen-adres");
    }

    @Test
    void aBerichttypeTheDvMayNotSendIsA400() {
        Http.Response response = http.post(DECENTRAAL, token, valid(Map.of("berichttype", "onbekend-type")));
        assertProblem(response, 400);
        assertThat(errorNames(response)).containsExactly("/berichttype");
    }

    @Test
    void geldigTotInThePastIsA400() {
        Http.Response response = http.post(DECENTRAAL, token, valid(Map.of("geldigTot", "2020-01-01T00:00:00Z")));
        assertProblem(response, 400);
        assertThat(errorNames(response)).containsExactly("/geldigTot");
    }

    @Test
    void geldigTotFarInTheFutureIsA400() {
        Http.Response response = http.post(DECENTRAAL, token, valid(Map.of("geldigTot", "+300000-01-01T00:00:00Z")));
        assertProblem(response, 400);
        assertThat(errorNames(response)).containsExactly("/geldigTot");
    }

    /**
     * Found by the callback fuzz target: the validator took a leap second and a lower-case t or z (RFC 3339 allows
     * both), the model's OffsetDateTime did not, and the callback answered 500. Both are a 400 naming the field.
     */
    @Test
    void aMomentTheModelCannotHoldIsA400NotA500() {
        for (String moment : List.of("2016-12-31T23:59:60Z", "2099-01-01t00:00:00Z", "2099-01-01T00:00:00z")) {
            assertProblem(http.post(DECENTRAAL, token, valid(Map.of("geldigTot", moment))), 400);
            Http.Response callback = http.post(
                    "/api/nmc/v1/notifynl-callback",
                    TestNmc.CALLBACK_TOKEN,
                    "{\"id\":\"" + java.util.UUID.randomUUID() + "\",\"status\":\"delivered\",\"completed_at\":\""
                            + moment + "\"}");
            assertCallbackProblem(callback, 400);
            assertThat(errorNames(callback)).as(moment).containsExactly("/completed_at");
        }
    }

    @Test
    void aCentralisedRequestWithoutAValidNumberListsEveryErrorAtOnceAndDoesNotEchoTheNumber() {
        Http.Response response = http.post(CENTRAAL, token, """
                {"dvRef": "REF-1", "berichttype": "%s", "identificatieType": "KvK", "identificatieNummer": "1234567A",
                 "emailadres": "ontvanger@example.nl", "personalisation": {"naam": 7}}
                """.formatted(TestNmc.BERICHTTYPE));
        assertProblem(response, 400);
        assertThat(errorNames(response))
                .containsExactlyInAnyOrder(
                        "/identificatieType", "/identificatieNummer", "/emailadres", "/personalisation/naam");
        assertThat(response.body()).doesNotContain("1234567A").doesNotContain("ontvanger@example.nl");
    }

    @Test
    void aCentralisedRequestNeedsItsTypeAndNumber() {
        Http.Response response =
                http.post(CENTRAAL, token, Http.json(Map.of("dvRef", "REF-1", "berichttype", TestNmc.BERICHTTYPE)));
        assertProblem(response, 400);
        assertThat(errorNames(response)).containsExactlyInAnyOrder("/identificatieType", "/identificatieNummer");
    }

    @Test
    void aCentralisedNumberThatIsNoNumberIsA400() {
        for (Object number : List.of("1234567", "1234567890", 12345678, "", " 12345678")) {
            Http.Response response = http.post(CENTRAAL, token, centraal("KVK", number));
            assertProblem(response, 400);
            assertThat(errorNames(response)).as(String.valueOf(number)).containsExactly("/identificatieNummer");
        }
    }

    /** The length per type and the elfproef: a 400 naming the number's field with a code, never the number. */
    @Test
    void aNumberOfTheWrongLengthForItsTypeOrFailingTheElfproefIsA400AndNothingIsStored() throws SQLException {
        record Case(String type, String number, String code) {}
        for (Case c : List.of(
                new Case("KVK", "123456782", "length"),
                new Case("RSIN", "12345670", "length"),
                new Case("BSN", "12345670", "length"),
                new Case("RSIN", "123456781", "elfproef"),
                new Case("BSN", "111222334", "elfproef"),
                new Case("BSN", "000000000", "elfproef"))) {
            Http.Response response = http.post(CENTRAAL, token, centraal(c.type(), c.number()));
            assertProblem(response, 400);
            assertThat(errorNames(response)).as(c.toString()).containsExactly("/identificatieNummer");
            assertThat(response.json().path("errors").get(0).path("code").asText())
                    .isEqualTo(c.code());
            assertThat(response.body()).doesNotContain(c.number());
        }
        assertThat(count("notificatie")).isZero();
    }

    @Test
    void anIdentifierTypeTheDvMayNotUseIsA400NamingTheTypeWithoutTheNumberAndNothingIsStored() throws SQLException {
        // DV B may use KVK numbers only (the register's default); a BSN needs a legal basis the register records.
        Http.Response response = http.post(CENTRAAL, IAM.token(TestNmc.DV_B), centraal("BSN", "111222333"));
        assertProblem(response, 400);
        assertThat(errorNames(response)).containsExactly("/identificatieType");
        assertThat(response.body()).doesNotContain("111222333");
        assertThat(count("notificatie")).isZero();
    }

    @Test
    void aDecentralisedRequestWithANumberIsA400() {
        Http.Response response = http.post(DECENTRAAL, token, valid(Map.of("identificatieNummer", "12345678")));
        assertProblem(response, 400);
        assertThat(errorNames(response)).containsExactly("/identificatieNummer");
    }

    @Test
    void aCentralisedRequestForABerichttypeTheDvMayNotSendIsA400() {
        Http.Response response = http.post(
                CENTRAAL,
                token,
                Http.json(Map.of(
                        "dvRef",
                        "REF-1",
                        "berichttype",
                        "onbekend-type",
                        "identificatieType",
                        "KVK",
                        "identificatieNummer",
                        "12345678")));
        assertProblem(response, 400);
        assertThat(errorNames(response)).containsExactly("/berichttype");
    }

    private static String centraal(String type, Object number) {
        return Http.json(Map.of(
                "dvRef",
                "REF-1",
                "berichttype",
                TestNmc.BERICHTTYPE,
                "identificatieType",
                type,
                "identificatieNummer",
                number));
    }

    @Test
    void aDvRefEndingInALineBreakIsA400() {
        assertProblem(http.post(DECENTRAAL, token, valid(Map.of("dvRef", "REF-1\n"))), 400);
    }

    /**
     * A control character in a free-text field is a 400 naming the field, without the value, and nothing is
     * stored: a NUL in {@code batchId} reached PostgreSQL (which refuses it in text) as a 500 with a stack trace.
     */
    @Test
    void aControlCharacterInAFreeTextFieldIsA400NamingTheFieldWithoutEchoingIt() {
        for (String control : List.of("\u0000", "\u0001", "\u001b", "\u007f", "\n", "\r", "\t")) {
            String what = "U+%04X".formatted((int) control.charAt(0));
            String batchId = "BATCH" + control + "GEHEIM";
            Http.Response single = http.post(DECENTRAAL, token, valid(Map.of("batchId", batchId)));
            assertProblem(single, 400);
            assertThat(errorNames(single)).as(what).containsExactly("/batchId");
            assertThat(single.body()).as(what).doesNotContain("GEHEIM");
            Http.Response centraal = http.post(
                    CENTRAAL,
                    token,
                    Http.json(Map.of(
                            "dvRef", "REF-1",
                            "berichttype", TestNmc.BERICHTTYPE,
                            "identificatieType", "KVK",
                            "identificatieNummer", "12345678",
                            "batchId", batchId)));
            assertProblem(centraal, 400);
            assertThat(errorNames(centraal)).as(what).containsExactly("/batchId");
        }
        // In personalisation a value may hold TAB, CR and LF (a text of several lines), no other C0 control, no DEL.
        for (String control : List.of("\u0000", "\u0001", "\u000b", "\u000c", "\u001b", "\u007f")) {
            String what = "U+%04X".formatted((int) control.charAt(0));
            Http.Response response = http.post(
                    DECENTRAAL,
                    token,
                    valid(Map.of("personalisation", Map.of("naam", "Bedrijf" + control + "GEHEIM"))));
            assertProblem(response, 400);
            assertThat(errorNames(response)).as(what).containsExactly("/personalisation/naam");
            assertThat(response.body()).as(what).doesNotContain("GEHEIM");
        }
    }

    /** OpenAPI 3.0 cannot say it of a name (no propertyNames): a control character in one names the object. */
    @Test
    void aControlCharacterInAFieldNameIsA400NamingTheObjectWithoutTheName() {
        Http.Response response =
                http.post(DECENTRAAL, token, valid(Map.of("personalisation", Map.of("na\u0000GEHEIM", "Bedrijf BV"))));
        assertProblem(response, 400);
        assertThat(errorNames(response)).containsExactly("/personalisation");
        assertThat(response.body()).doesNotContain("GEHEIM");
        Http.Response topLevel = http.post(DECENTRAAL, token, valid(Map.of("x\u001bGEHEIM", 1)));
        assertProblem(topLevel, 400);
        assertThat(errorNames(topLevel)).containsExactly("/");
        assertThat(topLevel.body()).doesNotContain("GEHEIM");
        Http.Response bulk = http.post(DECENTRAAL + "/bulk", token, "{\"x\\u0000GEHEIM\": 1}");
        assertProblem(bulk, 400);
        assertThat(errorNames(bulk)).containsExactlyInAnyOrder("/", "/notificaties");
        assertThat(bulk.body()).doesNotContain("GEHEIM");
    }

    /**
     * Found by the acceptance fuzz target: an unpaired surrogate is valid JSON syntax but no Unicode text (I-JSON
     * excludes it); it was accepted and stored as {@code ?}, so the NMC answered (and would have sent) another text
     * than it accepted, and two different requests counted as the same one.
     */
    @Test
    void anUnpairedSurrogateIsA400NamingTheField() {
        // written as JSON escapes: a Java string with one would reach the wire as "?" (UTF-8 has no code for it)
        Http.Response response = http.post(
                DECENTRAAL,
                token,
                "{\"dvRef\":\"REF-1\",\"berichttype\":\"%s\",\"emailadres\":\"ontvanger@example.nl\",\"batchId\":\"B\\ud800X\"}"
                        .formatted(TestNmc.BERICHTTYPE));
        assertProblem(response, 400);
        assertThat(errorNames(response)).containsExactly("/batchId");
        Http.Response personalisation = http.post(
                DECENTRAAL,
                token,
                ("{\"dvRef\":\"REF-1\",\"berichttype\":\"%s\",\"emailadres\":\"ontvanger@example.nl\","
                                + "\"personalisation\":{\"naam\":\"x\\udc00\",\"ok\":\"\\ud83d\\ude00\"}}")
                        .formatted(TestNmc.BERICHTTYPE));
        assertProblem(personalisation, 400);
        assertThat(errorNames(personalisation)).containsExactly("/personalisation/naam");
    }

    @Test
    void aControlCharacterInABulkItemRefusesThatItemOnly() throws SQLException {
        String body = Http.json(Map.of(
                "notificaties",
                List.of(Map.of(
                        "dvRef", "REF-B1",
                        "berichttype", TestNmc.BERICHTTYPE,
                        "emailadres", "ontvanger@example.nl",
                        "batchId", "B\u0000GEHEIM"))));
        Http.Response response = http.post(DECENTRAAL + "/bulk", token, body);
        assertThat(response.status()).as(response.body()).isEqualTo(200);
        JsonNode result = response.json().path("resultaten").get(0);
        assertThat(result.path("status").asInt()).isEqualTo(400);
        assertThat(result.path("probleem").path("errors").get(0).path("name").asText())
                .isEqualTo("/notificaties/0/batchId");
        assertThat(response.body()).doesNotContain("GEHEIM");
    }

    @Test
    void aCallbackWithAControlCharacterInAStoredFieldIsA400NotA500() {
        for (String field : List.of("status", "notification_type", "reference", "to")) {
            Map<String, Object> receipt = new java.util.LinkedHashMap<>(
                    Map.of("id", java.util.UUID.randomUUID().toString(), "status", "delivered"));
            receipt.put(field, "delivered\u0000GEHEIM");
            Http.Response response =
                    http.post("/api/nmc/v1/notifynl-callback", TestNmc.CALLBACK_TOKEN, Http.json(receipt));
            assertCallbackProblem(response, 400);
            assertThat(errorNames(response)).as(field).containsExactly("/" + field);
            assertThat(response.body()).doesNotContain("GEHEIM");
        }
    }

    @Test
    void aCallbackOutsideItsSchemaIsA400NotA500() {
        String body = "{\"id\":\"" + java.util.UUID.randomUUID() + "\",\"status\":\"" + "x".repeat(500)
                + "\",\"template_version\":99999999999}";
        Http.Response response = http.post("/api/nmc/v1/notifynl-callback", TestNmc.CALLBACK_TOKEN, body);
        assertCallbackProblem(response, 400);
        assertThat(errorNames(response)).containsOnly("/status", "/template_version");
    }

    @Test
    void anOversizedBodyIsA413() {
        String big = "x".repeat(9_000);
        Map<String, Object> personalisation = new java.util.HashMap<>();
        for (int i = 0; i < 10; i++) {
            personalisation.put("veld" + i, big);
        }
        Http.Response response = http.post(DECENTRAAL, token, valid(Map.of("personalisation", personalisation)));
        assertProblem(response, 413);
    }

    @Test
    void anEmptyBodyIsA400() {
        assertProblem(http.post(DECENTRAAL, token, ""), 400);
    }

    @Test
    void aMissingTokenIsA401() {
        assertProblem(http.post(DECENTRAAL, null, valid(Map.of())), 401);
    }

    @Test
    void anExpiredTokenIsA401() {
        String expired = IAM.token(
                TestNmc.DV_A, TestIam.ISSUER, TestIam.AUDIENCE, Instant.now().minusSeconds(120));
        assertProblem(http.post(DECENTRAAL, expired, valid(Map.of())), 401);
    }

    @Test
    void aForgedTokenIsA401() {
        assertProblem(http.post(DECENTRAAL, IAM.forgedToken(TestNmc.DV_A), valid(Map.of())), 401);
    }

    @Test
    void anUnsignedTokenIsA401() {
        assertProblem(http.post(DECENTRAAL, IAM.unsignedToken(TestNmc.DV_A), valid(Map.of())), 401);
    }

    @Test
    void aTokenSignedByAnUnknownKeyIsA401() {
        assertProblem(http.post(DECENTRAAL, IAM.unknownKeyToken(TestNmc.DV_A), valid(Map.of())), 401);
    }

    @Test
    void aTokenForAnotherAudienceOrIssuerIsA401() {
        Instant later = Instant.now().plusSeconds(600);
        assertProblem(
                http.post(DECENTRAAL, IAM.token(TestNmc.DV_A, TestIam.ISSUER, "iemand-anders", later), valid(Map.of())),
                401);
        assertProblem(
                http.post(
                        DECENTRAAL,
                        IAM.token(TestNmc.DV_A, "https://elders", TestIam.AUDIENCE, later),
                        valid(Map.of())),
                401);
    }

    @Test
    void anOinThatIsNotInTheRegisterIsA401() {
        assertProblem(http.post(DECENTRAAL, IAM.token("00000009999999999000"), valid(Map.of())), 401);
    }

    @Test
    void aMalformedIdIsA400AndAnUnknownOneA404() {
        assertProblem(http.get("/api/nmc/v1/notificaties/niet-een-uuid", token), 400);
        assertProblem(http.get("/api/nmc/v1/notificaties/" + java.util.UUID.randomUUID(), token), 404);
        assertProblem(http.delete("/api/nmc/v1/notificaties/" + java.util.UUID.randomUUID(), token), 404);
    }

    @Test
    void feedParametersAreChecked() {
        assertProblem(http.get("/api/nmc/v1/notificaties/wijzigingen?limit=0", token), 400);
        assertProblem(http.get("/api/nmc/v1/notificaties/wijzigingen?limit=veel", token), 400);
        assertProblem(http.get("/api/nmc/v1/notificaties/wijzigingen?cursor=rommel", token), 400);
        assertProblem(http.put("/api/nmc/v1/notificaties/wijzigingen/bevestiging", token, "{}"), 400);
    }

    @Test
    void aSearchWithoutDvRefIsA400() {
        assertProblem(http.get("/api/nmc/v1/notificaties", token), 400);
    }

    @Test
    void anUnknownPathIsA404Problem() {
        assertProblem(http.get("/api/nmc/v1/bestaat-niet", token), 404);
    }

    @Test
    void theCallbackRefusesAWrongTokenAndCountsItOnce() {
        double before = metric("nmc_receipts_rejected_total");
        Http.Response response = http.post(
                "/api/nmc/v1/notifynl-callback",
                "verkeerd-token-0123456789",
                "{\"id\":\"" + java.util.UUID.randomUUID() + "\",\"status\":\"delivered\"}");
        assertCallbackProblem(response, 401);
        assertThat(metric("nmc_receipts_rejected_total")).isEqualTo(before + 1);
        assertThat(metric("nmc_tasks_failed"))
                .as("counted at start by the operational gauges")
                .isZero();
        assertThat(metric("nmc_notifications_status_unknown")).isZero();
    }

    /** A receipt the callback refuses as unreadable is lost (NotifyNL does not retry a 400): it is counted too. */
    @Test
    void theCallbackCountsABodyItRefuses() {
        double before = metric("nmc_receipts_rejected_total");
        assertCallbackProblem(
                http.post(
                        "/api/nmc/v1/notifynl-callback",
                        TestNmc.CALLBACK_TOKEN,
                        "{\"id\":\"x\",\"status\":\"delivered\"}"),
                400);
        assertCallbackProblem(http.post("/api/nmc/v1/notifynl-callback", TestNmc.CALLBACK_TOKEN, "{\"id\":"), 400);
        assertThat(metric("nmc_receipts_rejected_total")).isEqualTo(before + 2);
    }

    /** The value of one metric (fails when it is absent). */
    private static double metric(String name) {
        return http.metric(name).orElseThrow(() -> new AssertionError(name + " is not exposed"));
    }

    @Test
    void healthIsServedOnTheManagementPortNotOnTheApiPort() {
        assertThat(new Http(http.baseUrl()).get("/observe/health", null).status())
                .isEqualTo(404);
        Http.Response health = http.get("/observe/health", null);
        assertThat(health.status()).isEqualTo(200);
        assertThat(health.json().path("status").asText()).isEqualTo("UP");
        assertThat(health.body()).contains("database");
    }

    @Test
    void theOpenApiDocumentIsServedWithoutAuthentication() {
        Http.Response json = http.get("/api/nmc/v1/openapi.json", null);
        assertThat(json.status()).isEqualTo(200);
        assertThat(json.json().path("info").path("version").asText())
                .isEqualTo(json.header("API-Version").orElseThrow());
        assertThat(json.header("Access-Control-Allow-Origin")).contains("*");
        assertThat(http.get("/api/nmc/v1/openapi.yaml", null).body()).startsWith("openapi:");
    }

    private static void assertProblem(Http.Response response, int status) {
        assertProblem(response, status, "1.1.0");
    }

    /** A problem of the NotifyNL callback: its own contract's version. */
    private static void assertCallbackProblem(Http.Response response, int status) {
        assertProblem(response, status, "1.0.0");
    }

    private static void assertProblem(Http.Response response, int status, String version) {
        assertThat(response.status()).as(response.body()).isEqualTo(status);
        assertThat(response.contentType()).startsWith("application/problem+json");
        assertThat(response.header("API-Version")).contains(version);
        JsonNode problem = response.json();
        assertThat(problem.path("status").asInt()).isEqualTo(status);
        assertThat(problem.path("title").asText()).isNotBlank();
        assertThat(problem.path("detail").asText()).isNotBlank();
        assertThat(response.body()).doesNotContain("Exception").doesNotContain("at nl.");
    }

    private static List<String> errorNames(Http.Response response) {
        List<String> names = new ArrayList<>();
        response.json()
                .path("errors")
                .forEach(error -> names.add(error.path("name").asText()));
        return names;
    }

    private static long count(String table) throws SQLException {
        try (Connection c = DB.connect();
                Statement s = c.createStatement();
                ResultSet rows = s.executeQuery("SELECT count(*) FROM " + table)) {
            rows.next();
            return rows.getLong(1);
        }
    }
}
