package nl.overheid.moz.nmc.simulator;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.http.Fault;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Profielservice simulator against its contract ({@code api-spec/profielservice.yaml}): the dev data, runtime
 * registration, the 404 types, validation with every error at once and no echo, authentication, idempotent
 * reports, trace recording, faults on top and logs free of KVK numbers and e-mail addresses. Every response the
 * contract declares is also checked by an independent validator over the published document.
 */
class ProfielserviceSimulatorTest {

    private static final SimulatorHttp.Oracle CONTRACT = new SimulatorHttp.Oracle("profielservice.yaml");
    private static final String TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    /** Every KVK number and e-mail address these tests send or register: none may reach a log line. */
    private static final List<String> PERSONAL = List.of("12345670", "12345671", "12345672", "12345673", "99999999",
            "55555555", "87654321", "1234567X", "info@voorbeeldbedrijf.nl", "simulator.notify", "@");

    private static final List<String> LOG = new CopyOnWriteArrayList<>();
    private static ProfielserviceSimulator sim;

    @BeforeAll
    static void start() {
        sim = ProfielserviceSimulator.start(ProfielserviceSimulator.Config.builder().log(LOG::add).build());
    }

    @AfterEach
    void reset() {
        sim.reset();
    }

    @AfterAll
    static void noPersonalDataWasLoggedByAnyTest() {
        try {
            assertThat(LOG).as("the simulator logged").isNotEmpty();
            assertNoPersonalData(LOG);
        } finally {
            sim.close();
        }
    }

    // --- lookups -------------------------------------------------------------------------------------------

    @ParameterizedTest
    @CsvSource({
            "12345670, info@voorbeeldbedrijf.nl",
            "12345671, perm-fail@simulator.notify",
            "12345672, temp-fail@simulator.notify"})
    void devDataAnswersTheRegisteredAddress(String kvk, String emailadres) {
        SimulatorHttp.Response response = lookup(kvk);

        assertThat(response.status()).as(response.body()).isEqualTo(200);
        assertThat(response.header("Content-Type")).hasValueSatisfying(type -> assertThat(type).startsWith("application/json"));
        assertThat(response.json().path("emailadres").asText()).isEqualTo(emailadres);
        assertThat(response.json().size()).isEqualTo(1);
    }

    @Test
    void devDataAddressesAreTheNotifyNlSimulatorsOnes() {
        assertThat(lookup(ProfielserviceSimulator.KVK_PERM_FAIL).json().path("emailadres").asText())
                .isEqualTo(NotifyNlSimulator.PERM_FAIL_ADDRESS);
        assertThat(lookup(ProfielserviceSimulator.KVK_TEMP_FAIL).json().path("emailadres").asText())
                .isEqualTo(NotifyNlSimulator.TEMP_FAIL_ADDRESS);
    }

    @Test
    void aPartyWithoutEmailPreferenceIs404GeenEmailvoorkeur() {
        SimulatorHttp.Response response = lookup("12345673");

        assertProblem(response, 404, "https://profielservice.example.nl/problemen/geen-emailvoorkeur");
        assertThat(response.body()).doesNotContain("12345673");
    }

    @ParameterizedTest
    @ValueSource(strings = {"99999999", "55555555", "00000000"})
    void anUnregisteredNumberIs404OnbekendePartij(String kvk) {
        SimulatorHttp.Response response = lookup(kvk);

        assertProblem(response, 404, "https://profielservice.example.nl/problemen/onbekende-partij");
        assertThat(response.body()).doesNotContain(kvk);
    }

    @Test
    void registrationAddsAndOverridesNumbersUntilReset() {
        sim.register("87654321", NotifyNlSimulator.NO_CALLBACK_ADDRESS);
        sim.register("12345670", NotifyNlSimulator.SLOW_CALLBACK_ADDRESS);
        sim.registerWithoutPreference("12345672");

        assertThat(lookup("87654321").json().path("emailadres").asText()).isEqualTo("no-callback@simulator.notify");
        assertThat(lookup("12345670").json().path("emailadres").asText()).isEqualTo("slow-callback@simulator.notify");
        assertProblem(lookup("12345672"), 404, ProfielserviceSimulator.PROBLEM_GEEN_EMAILVOORKEUR);

        sim.reset();

        assertProblem(lookup("87654321"), 404, ProfielserviceSimulator.PROBLEM_ONBEKENDE_PARTIJ);
        assertThat(lookup("12345670").json().path("emailadres").asText()).isEqualTo("info@voorbeeldbedrijf.nl");
        assertThat(lookup("12345672").json().path("emailadres").asText()).isEqualTo("temp-fail@simulator.notify");
    }

    @Test
    void registrationRefusesWhatTheContractCannotCarryWithoutNamingIt() {
        assertThatThrownBy(() -> sim.register("1234567", "a@b.nl"))
                .isInstanceOf(IllegalArgumentException.class)
                .message().doesNotContain("1234567");
        assertThatThrownBy(() -> sim.register("1234567\n", "a@b.nl")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> sim.registerWithoutPreference("abcdefgh")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> sim.register("87654321", "geen-adres"))
                .isInstanceOf(IllegalArgumentException.class)
                .message().doesNotContain("geen-adres");
        assertThatThrownBy(() -> sim.register("87654321", "x".repeat(250) + "@b.nl")).isInstanceOf(IllegalArgumentException.class);
    }

    // --- validation ----------------------------------------------------------------------------------------

    static Stream<Arguments> invalidLookups() {
        return Stream.of(
                Arguments.of("{\"identificerendNummer\":\"1234567X\",\"soort\":\"bsn\",\"telefoon\":\"0612345678\"}",
                        List.of(List.of("/identificerendNummer", "pattern"), List.of("/soort", "enum"),
                                List.of("/telefoon", "additionalProperties"))),
                Arguments.of("{}", List.of(List.of("/identificerendNummer", "required"), List.of("/soort", "required"))),
                Arguments.of("{\"identificerendNummer\":12345670,\"soort\":\"kvk\"}",
                        List.of(List.of("/identificerendNummer", "type"))),
                Arguments.of("{\"identificerendNummer\":\"12345670\\n\",\"soort\":\"KVK\"}",
                        List.of(List.of("/identificerendNummer", "pattern"), List.of("/soort", "enum"))),
                Arguments.of("{\"identificerendNummer\":\"123456701\",\"soort\":null}",
                        List.of(List.of("/identificerendNummer", "pattern"), List.of("/soort", "type"))),
                Arguments.of("[\"12345670\"]", List.of(List.of("/", "type"))),
                Arguments.of("{\"identificerendNummer\":\"12345670\",\"soort\":\"kvk\",\"12345670\":true}",
                        List.of(List.of("/", "additionalProperties"))));
    }

    @ParameterizedTest
    @MethodSource("invalidLookups")
    void anInvalidLookupIs400WithEveryErrorAndNoValueEchoed(String body, List<List<String>> expected) {
        SimulatorHttp.Call call = lookupCall(body);
        SimulatorHttp.Response response = CONTRACT.conforming(call, call.send());

        assertProblem(response, 400, ProfielserviceSimulator.PROBLEM_ONGELDIGE_INVOER);
        assertThat(response.errors()).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(response.json().path("detail").asText()).isEqualTo(
                "Het verzoek bevat " + expected.size() + (expected.size() == 1 ? " fout." : " fouten."));
        assertThat(response.body()).doesNotContain("1234567", "0612345678", "bsn", "KVK");
        assertThat(CONTRACT.requestErrors(call)).as("the independent validator refuses it too").isNotEmpty();
        assertThat(sim.calls()).singleElement().extracting(ReceivedCall::status).isEqualTo(400);
    }

    static Stream<Arguments> invalidReports() {
        return Stream.of(
                Arguments.of("{}", List.of(List.of("/meldingId", "required"), List.of("/identificerendNummer", "required"),
                        List.of("/soort", "required"), List.of("/kanaal", "required"), List.of("/reden", "required"))),
                Arguments.of("{\"meldingId\":\"12345670\",\"identificerendNummer\":\"12345670\",\"soort\":\"kvk\","
                                + "\"kanaal\":\"sms\",\"reden\":\"temporary-failure\",\"emailadres\":\"info@voorbeeldbedrijf.nl\"}",
                        List.of(List.of("/meldingId", "format"), List.of("/kanaal", "enum"), List.of("/reden", "enum"),
                                List.of("/emailadres", "additionalProperties"))),
                Arguments.of("{\"meldingId\":\"5d8a7c3e1f2b4c6d8e9f0a1b2c3d4e5f\",\"identificerendNummer\":\"1234567\","
                                + "\"soort\":\"kvk\",\"kanaal\":\"email\",\"reden\":\"permanent-failure\"}",
                        List.of(List.of("/meldingId", "format"), List.of("/identificerendNummer", "pattern"))));
    }

    @ParameterizedTest
    @MethodSource("invalidReports")
    void anInvalidReportIs400WithEveryErrorAndRecordsNothing(String body, List<List<String>> expected) {
        SimulatorHttp.Call call = reportCall(body);
        SimulatorHttp.Response response = CONTRACT.conforming(call, call.send());

        assertProblem(response, 400, ProfielserviceSimulator.PROBLEM_ONGELDIGE_INVOER);
        assertThat(response.errors()).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(response.body()).doesNotContain("1234567", "voorbeeldbedrijf", "sms", "temporary");
        assertThat(CONTRACT.requestErrors(call)).as("the independent validator refuses it too").isNotEmpty();
        assertThat(sim.reports()).isEmpty();
        assertThat(sim.reportCalls()).isZero();
    }

    @Test
    void headerAndBodyProblemsComeInOneAnswer() {
        SimulatorHttp.Response response = lookupCall("{\"identificerendNummer\":\"1234\"}")
                .header("traceparent", "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01").send();

        assertProblem(response, 400, ProfielserviceSimulator.PROBLEM_ONGELDIGE_INVOER);
        assertThat(response.errors()).containsExactlyInAnyOrder(List.of("traceparent", "pattern"),
                List.of("/identificerendNummer", "pattern"), List.of("/soort", "required"));
    }

    @Test
    void aBodyThatIsNotJsonOrNotSentAsJsonIs400() {
        assertThat(lookupCall("{\"identificerendNummer\":").send().errors()).containsExactly(List.of("/", "syntax"));
        assertThat(lookupCall("").send().errors()).containsExactly(List.of("/", "required"));
        SimulatorHttp.Response asText = lookupCall("{\"identificerendNummer\":\"12345670\",\"soort\":\"kvk\"}")
                .header("Content-Type", "text/plain").send();
        assertProblem(asText, 400, ProfielserviceSimulator.PROBLEM_ONGELDIGE_INVOER);
        assertThat(asText.errors()).containsExactly(List.of("Content-Type", "mediaType"));
        assertThat(lookupCall("{\"identificerendNummer\":\"12345670\",\"soort\":\"kvk\"}")
                .header("Content-Type", "application/json; charset=utf-8").send().status()).isEqualTo(200);
    }

    // --- authentication ------------------------------------------------------------------------------------

    @ParameterizedTest
    @ValueSource(strings = {"", "Bearer ", "Bearer wrong-token", "Basic ZGV2OmRldg==", "dev-profielservice-token",
            "Bearer dev-profielservice-token-and-more"})
    void withoutTheConfiguredBearerTokenItIs401(String authorization) {
        SimulatorHttp.Call lookup = lookupCall("{\"identificerendNummer\":\"12345670\",\"soort\":\"kvk\"}")
                .header("Authorization", authorization.isEmpty() ? null : authorization);
        SimulatorHttp.Call report = reportCall(reportBody(UUID.randomUUID(), "12345671"))
                .header("Authorization", authorization.isEmpty() ? null : authorization);

        for (SimulatorHttp.Response response : List.of(CONTRACT.conforming(lookup, lookup.send()),
                CONTRACT.conforming(report, report.send()))) {
            assertProblem(response, 401, ProfielserviceSimulator.PROBLEM_NIET_GEAUTHENTICEERD);
            assertThat(response.header("WWW-Authenticate")).contains("Bearer");
            assertThat(response.body()).doesNotContain("12345670", "info@");
        }
        assertThat(sim.reports()).isEmpty();
        assertThat(sim.calls()).extracting(ReceivedCall::status).containsExactly(401, 401);
    }

    @Test
    void theTokenIsComparedExactlyOnOneKeptAliveConnection() throws Exception {
        String body = "{\"identificerendNummer\":\"12345670\",\"soort\":\"kvk\"}";
        try (KeptAliveConnection connection = new KeptAliveConnection(sim.port())) {
            assertThat(connection.post(ProfielserviceSimulator.LOOKUP_PATH, java.util.Map.of("Content-Type", "application/json",
                    "Authorization", "Bearer dev-profielservice-token"), body)).isEqualTo(200);
            assertThat(connection.post(ProfielserviceSimulator.LOOKUP_PATH, java.util.Map.of("Content-Type", "application/json",
                    "Authorization", "Bearer DEV-PROFIELSERVICE-TOKEN"), body)).isEqualTo(401);
        }
    }

    @Test
    void theBearerSchemeIsCaseInsensitiveAndTheTokenConfigurable() {
        assertThat(lookupCall("{\"identificerendNummer\":\"12345670\",\"soort\":\"kvk\"}")
                .header("Authorization", "bearer " + ProfielserviceSimulator.DEFAULT_BEARER_TOKEN).send().status())
                .isEqualTo(200);
        try (ProfielserviceSimulator other = ProfielserviceSimulator.start(
                ProfielserviceSimulator.Config.builder().bearerToken("other-token").log(LOG::add).build())) {
            SimulatorHttp.Call call = new SimulatorHttp.Call(root(other), ProfielserviceSimulator.LOOKUP_PATH)
                    .body("{\"identificerendNummer\":\"12345670\",\"soort\":\"kvk\"}");
            assertThat(call.bearer(ProfielserviceSimulator.DEFAULT_BEARER_TOKEN).send().status()).isEqualTo(401);
            assertThat(call.bearer("other-token").send().status()).isEqualTo(200);
            assertThat(other.baseUrl()).isEqualTo("http://127.0.0.1:" + other.port() + "/api/profielservice/v1");
        }
    }

    // --- reports -------------------------------------------------------------------------------------------

    @Test
    void aReportIsIdempotentOnItsMeldingId() {
        UUID meldingId = UUID.randomUUID();
        Instant before = Instant.now();

        SimulatorHttp.Response first = report(meldingId, "12345671");
        SimulatorHttp.Response again = report(meldingId, "12345671");

        assertThat(first.status()).as(first.body()).isEqualTo(201);
        assertThat(first.json().path("meldingId").asText()).isEqualTo(meldingId.toString());
        assertThat(again.status()).as(again.body()).isEqualTo(200);
        assertThat(again.json().path("meldingId").asText()).isEqualTo(meldingId.toString());
        assertThat(sim.reports()).singleElement().satisfies(report -> {
            assertThat(report.meldingId()).isEqualTo(meldingId);
            assertThat(report.identificerendNummer()).isEqualTo("12345671");
            assertThat(report.receivedAt()).isBetween(before, Instant.now());
            assertThat(report.toString()).doesNotContain("12345671");
        });
        assertThat(sim.reportCalls()).isEqualTo(2);

        UUID another = UUID.randomUUID();
        assertThat(report(another, "12345672").status()).isEqualTo(201);
        assertThat(sim.reports()).extracting(ProfielserviceSimulator.Report::meldingId).containsExactly(meldingId, another);
        assertThat(sim.reportCalls()).isEqualTo(3);
    }

    @Test
    void aReportDoesNotChangeLaterLookups() {
        assertThat(report(UUID.randomUUID(), "12345671").status()).isEqualTo(201);

        assertThat(lookup("12345671").json().path("emailadres").asText()).isEqualTo("perm-fail@simulator.notify");
    }

    @Test
    void theMeldingIdIsAnsweredAsSent() {
        String upper = UUID.randomUUID().toString().toUpperCase();
        SimulatorHttp.Call call = reportCall(reportBody(upper, "12345671"));
        SimulatorHttp.Response response = CONTRACT.conforming(call, call.send());

        assertThat(response.status()).isEqualTo(201);
        assertThat(response.json().path("meldingId").asText()).isEqualTo(upper);
        assertThat(report(UUID.fromString(upper), "12345671").status()).as("the same id in lower case").isEqualTo(200);
    }

    // --- traces --------------------------------------------------------------------------------------------

    @Test
    void everyCallIsRecordedWithItsTraceparent() {
        lookupCall("{\"identificerendNummer\":\"12345670\",\"soort\":\"kvk\"}").header("traceparent", TRACEPARENT).send();
        lookupCall("{\"identificerendNummer\":\"99999999\",\"soort\":\"kvk\"}").send();
        reportCall(reportBody(UUID.randomUUID(), "12345671")).header("traceparent", TRACEPARENT).send();

        assertThat(sim.calls()).extracting(ReceivedCall::operation, ReceivedCall::traceparent, ReceivedCall::status)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("contactgegevensOpvragen", TRACEPARENT, 200),
                        org.assertj.core.groups.Tuple.tuple("contactgegevensOpvragen", null, 404),
                        org.assertj.core.groups.Tuple.tuple("emailadresOngeldigMelden", TRACEPARENT, 201));
        assertThat(sim.traceparents()).containsExactly(TRACEPARENT, TRACEPARENT);
        assertThat(sim.wireMock().getAllServeEvents()).allSatisfy(event ->
                assertThat(event.getRequest().containsHeader("traceparent") ? event.getRequest().getHeader("traceparent") : null)
                        .isIn(TRACEPARENT, null));
    }

    // --- faults on top -------------------------------------------------------------------------------------

    @Test
    void aPriorityOneOutageWinsUntilReset() {
        sim.wireMock().stubFor(post(urlPathEqualTo(ProfielserviceSimulator.LOOKUP_PATH)).atPriority(1)
                .willReturn(ProfielserviceSimulator.unavailable()));
        sim.wireMock().stubFor(post(urlPathEqualTo(ProfielserviceSimulator.REPORT_PATH)).atPriority(1)
                .willReturn(ProfielserviceSimulator.tooManyRequests(30)));

        SimulatorHttp.Call lookup = lookupCall("{\"identificerendNummer\":\"12345670\",\"soort\":\"kvk\"}");
        SimulatorHttp.Response unavailable = CONTRACT.conforming(lookup, lookup.send());
        assertThat(unavailable.status()).isEqualTo(503);
        SimulatorHttp.Call report = reportCall(reportBody(UUID.randomUUID(), "12345671"));
        SimulatorHttp.Response tooMany = CONTRACT.conforming(report, report.send());
        assertThat(tooMany.status()).isEqualTo(429);
        assertThat(tooMany.header("Retry-After")).contains("30");
        assertThat(sim.reports()).as("the outage answered, not the simulator").isEmpty();

        sim.reset();

        assertThat(lookup.send().status()).isEqualTo(200);
        assertThat(report.send().status()).isEqualTo(201);
    }

    @Test
    void aFaultStubNamingTheTransformerRecordsTheReportButTheCallerSeesNoAnswer() {
        sim.wireMock().stubFor(post(urlPathEqualTo(ProfielserviceSimulator.REPORT_PATH)).atPriority(1)
                .willReturn(aResponse().withTransformers(ProfielserviceSimulator.REPORT_TRANSFORMER)
                        .withFault(Fault.CONNECTION_RESET_BY_PEER)));
        UUID meldingId = UUID.randomUUID();

        assertThatThrownBy(() -> report(meldingId, "12345671")).isInstanceOf(UncheckedIOException.class);
        assertThat(sim.reports()).extracting(ProfielserviceSimulator.Report::meldingId).containsExactly(meldingId);

        sim.reset();
        assertThat(report(meldingId, "12345671").status()).as("forgotten by reset").isEqualTo(201);
    }

    @Test
    void aSlowAnswerKeepsTheSimulatorsBody() {
        sim.wireMock().stubFor(post(urlPathEqualTo(ProfielserviceSimulator.LOOKUP_PATH)).atPriority(1)
                .willReturn(aResponse().withTransformers(ProfielserviceSimulator.LOOKUP_TRANSFORMER).withFixedDelay(300)));
        long start = System.nanoTime();

        SimulatorHttp.Response response = lookup("12345670");

        assertThat(response.status()).isEqualTo(200);
        assertThat(response.json().path("emailadres").asText()).isEqualTo("info@voorbeeldbedrijf.nl");
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(300_000_000L);
    }

    @Test
    void otherMethodsAndPathsAreProblemsWithTheApiVersion() {
        SimulatorHttp.Response get = new SimulatorHttp.Call(root(sim), ProfielserviceSimulator.LOOKUP_PATH)
                .method("GET").bearer(sim.bearerToken()).send();
        assertThat(get.status()).isEqualTo(405);
        assertThat(get.header("Allow")).contains("POST");
        assertThat(get.header("API-Version")).contains("1.0.0");

        SimulatorHttp.Response unknown = new SimulatorHttp.Call(root(sim), "/api/profielservice/v1/partijen/12345670")
                .bearer(sim.bearerToken()).body("{}").send();
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.header("Content-Type")).contains("application/problem+json");
        assertThat(unknown.header("API-Version")).contains("1.0.0");
        assertThat(unknown.body()).doesNotContain("12345670");
    }

    // --- logs ----------------------------------------------------------------------------------------------

    @Test
    void logsCarryNoKvkNumberOrEmailAddress() {
        List<String> log = new CopyOnWriteArrayList<>();
        try (ProfielserviceSimulator own = ProfielserviceSimulator.start(
                ProfielserviceSimulator.Config.builder().log(log::add).build())) {
            own.register("87654321", "iemand@voorbeeldbedrijf.nl");
            for (String kvk : List.of("12345670", "12345671", "12345672", "12345673", "99999999", "87654321")) {
                new SimulatorHttp.Call(root(own), ProfielserviceSimulator.LOOKUP_PATH).bearer(own.bearerToken())
                        .body("{\"identificerendNummer\":\"" + kvk + "\",\"soort\":\"kvk\"}").send();
            }
            new SimulatorHttp.Call(root(own), ProfielserviceSimulator.LOOKUP_PATH).bearer(own.bearerToken())
                    .body("{\"identificerendNummer\":\"1234567X\",\"soort\":\"kvk\",\"info@voorbeeldbedrijf.nl\":1}").send();
            new SimulatorHttp.Call(root(own), ProfielserviceSimulator.REPORT_PATH).bearer(own.bearerToken())
                    .body(reportBody(UUID.randomUUID(), "12345671")).send();
            new SimulatorHttp.Call(root(own), ProfielserviceSimulator.REPORT_PATH).bearer("wrong")
                    .body(reportBody(UUID.randomUUID(), "12345671")).send();
            new SimulatorHttp.Call(root(own), "/elders/12345670").bearer(own.bearerToken()).body("{}").send();
        }

        assertThat(log).hasSizeGreaterThanOrEqualTo(9);
        assertThat(log).anySatisfy(line -> assertThat(line).contains("onbekende-partij"));
        assertThat(log).anySatisfy(line -> assertThat(line).contains("/identificerendNummer:pattern"));
        assertNoPersonalData(log);
    }

    // --- helpers -------------------------------------------------------------------------------------------

    private static void assertNoPersonalData(List<String> log) {
        Pattern eightDigits = Pattern.compile("(?<![0-9a-f-])[0-9]{8}(?![0-9a-f-])");
        assertThat(log).allSatisfy(line -> {
            assertThat(line).doesNotContain(PERSONAL);
            assertThat(eightDigits.matcher(line).find()).as("an 8-digit number in: " + line).isFalse();
        });
    }

    private static void assertProblem(SimulatorHttp.Response response, int status, String type) {
        assertThat(response.status()).as(response.body()).isEqualTo(status);
        assertThat(response.header("Content-Type")).contains("application/problem+json");
        assertThat(response.header("API-Version")).contains("1.0.0");
        assertThat(response.json().path("type").asText()).isEqualTo(type);
        assertThat(response.json().path("status").asInt()).isEqualTo(status);
        assertThat(response.json().path("title").asText()).isNotBlank();
        assertThat(response.json().path("detail").asText()).isNotBlank();
    }

    private static String root(ProfielserviceSimulator simulator) {
        return "http://127.0.0.1:" + simulator.port();
    }

    private static SimulatorHttp.Call lookupCall(String body) {
        return new SimulatorHttp.Call(root(sim), ProfielserviceSimulator.LOOKUP_PATH).bearer(sim.bearerToken()).body(body);
    }

    private static SimulatorHttp.Call reportCall(String body) {
        return new SimulatorHttp.Call(root(sim), ProfielserviceSimulator.REPORT_PATH).bearer(sim.bearerToken()).body(body);
    }

    /** A lookup, checked by the independent validator: request and (for a declared status) response. */
    private static SimulatorHttp.Response lookup(String kvk) {
        SimulatorHttp.Call call = lookupCall("{\"identificerendNummer\":\"" + kvk + "\",\"soort\":\"kvk\"}")
                .header("traceparent", TRACEPARENT);
        assertThat(CONTRACT.requestErrors(call)).isEmpty();
        return CONTRACT.conforming(call, call.send());
    }

    private static SimulatorHttp.Response report(UUID meldingId, String kvk) {
        SimulatorHttp.Call call = reportCall(reportBody(meldingId, kvk));
        assertThat(CONTRACT.requestErrors(call)).isEmpty();
        return CONTRACT.conforming(call, call.send());
    }

    private static String reportBody(Object meldingId, String kvk) {
        return "{\"meldingId\":\"" + meldingId + "\",\"identificerendNummer\":\"" + kvk
                + "\",\"soort\":\"kvk\",\"kanaal\":\"email\",\"reden\":\"permanent-failure\"}";
    }
}
