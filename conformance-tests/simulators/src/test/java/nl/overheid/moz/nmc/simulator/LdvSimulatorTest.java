package nl.overheid.moz.nmc.simulator;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.http.Fault;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The LDV simulator against its contract ({@code api-spec/ldv.yaml}): validation with every error at once and no
 * echo, storage in acknowledgement order, idempotency on (trace_id, span_id), the acknowledgement clock,
 * authentication, faults on top and logs without names or attribute values. Every response the contract
 * declares is also checked by an independent validator over the published document.
 */
class LdvSimulatorTest {

    private static final SimulatorHttp.Oracle CONTRACT = new SimulatorHttp.Oracle("ldv.yaml");
    private static final String TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
    private static final String TRACEPARENT = "00-" + TRACE_ID + "-b7ad6b7169203331-01";
    /** Pseudonym-like and personal-looking values these tests send: none may reach a log line. */
    private static final List<String> NOT_IN_LOGS = List.of(
            "12345670",
            "info@voorbeeldbedrijf.nl",
            "@",
            "nmc.notifynl.email-versturen",
            "dpl.core",
            "verwerkingsactiviteiten",
            "c2VjcmV0LXBzZXVkb255bQ");

    private static final List<String> LOG = new CopyOnWriteArrayList<>();
    private static LdvSimulator sim;

    @BeforeAll
    static void start() {
        sim = LdvSimulator.start(LdvSimulator.Config.builder().log(LOG::add).build());
    }

    @AfterEach
    void reset() {
        sim.reset();
    }

    @AfterAll
    static void nothingButIdsAndCodesWasLoggedByAnyTest() {
        try {
            assertThat(LOG).as("the simulator logged").isNotEmpty();
            assertThat(LOG).allSatisfy(line -> assertThat(line).doesNotContain(NOT_IN_LOGS));
        } finally {
            sim.close();
        }
    }

    // --- storage and acknowledgement -----------------------------------------------------------------------

    @Test
    void aValidRecordIsStoredAndAcknowledgedWithItsId() {
        Instant before = Instant.now();
        SimulatorHttp.Response response = record(TRACEPARENT, record("b7ad6b7169203331"));
        Instant after = Instant.now();

        assertThat(response.status()).as(response.body()).isEqualTo(201);
        assertThat(response.header("Content-Type"))
                .hasValueSatisfying(type -> assertThat(type).startsWith("application/json"));
        assertThat(response.json().path("id").asText()).isEqualTo(TRACE_ID + "-b7ad6b7169203331");
        assertThat(sim.records()).singleElement().satisfies(stored -> {
            assertThat(stored.traceId()).isEqualTo(TRACE_ID);
            assertThat(stored.spanId()).isEqualTo("b7ad6b7169203331");
            assertThat(stored.id()).isEqualTo(TRACE_ID + "-b7ad6b7169203331");
            assertThat(stored.parentSpanId()).isEqualTo("00f067aa0ba902b7");
            assertThat(stored.name()).isEqualTo("nmc.notifynl.email-versturen");
            assertThat(stored.startTime()).isEqualTo(Instant.parse("2026-12-01T09:31:05.123Z"));
            assertThat(stored.endTime()).isEqualTo(Instant.parse("2026-12-01T08:31:05.123456789Z"));
            assertThat(stored.statusCode()).isEqualTo("STATUS_CODE_OK");
            assertThat(stored.attributes())
                    .containsExactly(
                            Map.entry(
                                    "dpl.core.processing_activity_id",
                                    "https://register.example.nl/verwerkingsactiviteiten/notificeren"),
                            Map.entry("dpl.core.data_subject_id", "c2VjcmV0LXBzZXVkb255bQ"),
                            Map.entry("dpl.core.data_subject_id_type", "kvk-hmac"));
            assertThat(stored.acknowledgedAt()).isBetween(before, after);
            assertThat(stored.traceparent()).isEqualTo(TRACEPARENT);
        });
        assertThat(sim.acknowledgements()).isEqualTo(1);
    }

    @Test
    void optionalFieldsMayBeLeftOut() {
        Map<String, Object> minimal = record("b7ad6b7169203331");
        minimal.remove("parent_span_id");
        minimal.remove("resource");

        assertThat(record(null, minimal).status()).isEqualTo(201);
        assertThat(sim.records()).singleElement().satisfies(stored -> {
            assertThat(stored.parentSpanId()).isNull();
            assertThat(stored.traceparent()).isNull();
        });
    }

    @Test
    void aRecordSentAgainIsAcknowledgedAgainAndStoredOnce() {
        Map<String, Object> first = record("b7ad6b7169203331");
        Map<String, Object> again = record("b7ad6b7169203331");
        again.put("name", "nmc.profielservice.contactgegevens-opvragen");

        SimulatorHttp.Response one = record(TRACEPARENT, first);
        SimulatorHttp.Response two = record(TRACEPARENT, again);

        assertThat(one.status()).isEqualTo(201);
        assertThat(two.status()).isEqualTo(201);
        assertThat(two.json().path("id").asText())
                .isEqualTo(one.json().path("id").asText());
        assertThat(sim.records())
                .singleElement()
                .extracting(LdvSimulator.Record::name)
                .as("the first one stays")
                .isEqualTo("nmc.notifynl.email-versturen");
        assertThat(sim.acknowledgements()).isEqualTo(2);
    }

    @Test
    void recordsAreListedInAcknowledgementOrder() {
        List<String> spans = List.of("0000000000000003", "0000000000000001", "0000000000000002");
        for (String span : spans) {
            assertThat(record(TRACEPARENT, record(span)).status()).isEqualTo(201);
        }
        record(TRACEPARENT, record("0000000000000003"));

        assertThat(sim.records()).extracting(LdvSimulator.Record::spanId).containsExactlyElementsOf(spans);
        List<Instant> acknowledged =
                sim.records().stream().map(LdvSimulator.Record::acknowledgedAt).toList();
        assertThat(acknowledged).isSorted();
    }

    @Test
    void theAcknowledgementPrecedesTheNextCallAtAnotherSimulator() {
        try (ProfielserviceSimulator profielservice = ProfielserviceSimulator.start()) {
            for (int i = 0; i < 20; i++) {
                String span = "%016x".formatted(i + 1);
                assertThat(record(TRACEPARENT, record(span)).status()).isEqualTo(201);
                new SimulatorHttp.Call(profielservice.baseUrl(), ProfielserviceSimulator.PARTIJ_PATH)
                        .body("{\"identificatieType\":\"KVK\",\"identificatieNummer\":\"12345670\"}")
                        .send();
            }
            List<LoggedRequest> lookups = profielservice.wireMock().getAllServeEvents().stream()
                    .map(event -> event.getRequest())
                    .sorted(java.util.Comparator.comparing(LoggedRequest::getLoggedDate))
                    .toList();
            List<LdvSimulator.Record> records = sim.records();

            assertThat(lookups).hasSize(20);
            for (int i = 0; i < 20; i++) {
                Instant lookupArrived = lookups.get(i).getLoggedDate().toInstant();
                assertThat(records.get(i).acknowledgedNoLaterThan(lookupArrived))
                        .as(
                                "record %d acknowledged at %s, lookup logged at %s",
                                i, records.get(i).acknowledgedAt(), lookupArrived)
                        .isTrue();
                if (i + 1 < 20) {
                    assertThat(records.get(i + 1).acknowledgedAt())
                            .as("the next record came after this lookup")
                            .isAfterOrEqualTo(lookupArrived);
                }
            }
        }
    }

    // --- validation ----------------------------------------------------------------------------------------

    static Stream<Arguments> invalidRecords() {
        Map<String, Object> everythingWrong = new LinkedHashMap<>();
        everythingWrong.put("trace_id", TRACE_ID.toUpperCase());
        everythingWrong.put("span_id", "b7ad6b716920333");
        everythingWrong.put("parent_span_id", "00f067aa0ba902b7\n");
        everythingWrong.put("name", "");
        everythingWrong.put("start_time", "2026-12-01T09:31Z");
        everythingWrong.put("end_time", "2026-12-01T09:31:05.123");
        everythingWrong.put("status_code", "OK");
        everythingWrong.put("attributes", List.of());
        everythingWrong.put("kvk", "12345670");

        Map<String, Object> wrongItems = record("b7ad6b7169203331");
        wrongItems.put(
                "attributes",
                List.of(
                        Map.of("key", "dpl.core.data_subject_id"),
                        Map.of("key", "", "value", "x", "type", "string"),
                        "dpl.core.data_subject_id=12345670"));
        wrongItems.put(
                "resource",
                Map.of(
                        "attributes",
                        IntStream.range(0, 21)
                                .mapToObj(i -> Map.of("key", "k" + i, "value", "v"))
                                .toList()));

        Map<String, Object> tooLong = record("b7ad6b7169203331");
        tooLong.put("name", "n".repeat(201));
        tooLong.put(
                "attributes",
                IntStream.range(0, 51)
                        .mapToObj(i ->
                                Map.of("key", "k".repeat(i == 0 ? 201 : 1), "value", i == 1 ? "v".repeat(2001) : "v"))
                        .toList());
        tooLong.put("resource", Map.of("service.name", "nmc"));

        Map<String, Object> wrongTypes = record("b7ad6b7169203331");
        wrongTypes.put("trace_id", 12345670);
        wrongTypes.put("start_time", null);
        wrongTypes.put("attributes", Map.of("key", "v"));
        wrongTypes.put("resource", List.of());

        Map<String, Object> impossibleDates = record("b7ad6b7169203331");
        impossibleDates.put("start_time", "2026-02-30T09:31:05Z");
        impossibleDates.put("end_time", "2026-12-01T25:31:05+01:00");

        return Stream.of(
                Arguments.of(
                        Map.of(),
                        List.of(
                                List.of("/trace_id", "required"),
                                List.of("/span_id", "required"),
                                List.of("/name", "required"),
                                List.of("/start_time", "required"),
                                List.of("/end_time", "required"),
                                List.of("/status_code", "required"),
                                List.of("/attributes", "required"))),
                Arguments.of(
                        everythingWrong,
                        List.of(
                                List.of("/trace_id", "pattern"),
                                List.of("/span_id", "pattern"),
                                List.of("/parent_span_id", "pattern"),
                                List.of("/name", "minLength"),
                                List.of("/start_time", "format"),
                                List.of("/end_time", "format"),
                                List.of("/status_code", "enum"),
                                List.of("/attributes", "minItems"),
                                List.of("/kvk", "additionalProperties"))),
                Arguments.of(
                        wrongItems,
                        List.of(
                                List.of("/attributes/0/value", "required"),
                                List.of("/attributes/1/key", "minLength"),
                                List.of("/attributes/1/type", "additionalProperties"),
                                List.of("/attributes/2", "type"),
                                List.of("/resource/attributes", "maxItems"))),
                Arguments.of(
                        tooLong,
                        List.of(
                                List.of("/name", "maxLength"),
                                List.of("/attributes", "maxItems"),
                                List.of("/attributes/0/key", "maxLength"),
                                List.of("/attributes/1/value", "maxLength"),
                                List.of("/resource/attributes", "required"))),
                Arguments.of(
                        wrongTypes,
                        List.of(
                                List.of("/trace_id", "type"),
                                List.of("/start_time", "type"),
                                List.of("/attributes", "type"),
                                List.of("/resource", "type"))),
                Arguments.of(
                        impossibleDates, List.of(List.of("/start_time", "format"), List.of("/end_time", "format"))));
    }

    @ParameterizedTest
    @MethodSource("invalidRecords")
    void anInvalidRecordIs400WithEveryErrorStoresNothingAndEchoesNothing(
            Map<String, Object> body, List<List<String>> expected) {
        SimulatorHttp.Call call = call(json(body)).header("traceparent", TRACEPARENT);
        SimulatorHttp.Response response = CONTRACT.conforming(call, call.send());

        assertProblem(response, 400, LdvSimulator.PROBLEM_ONGELDIGE_INVOER);
        assertThat(response.errors()).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(response.body())
                .doesNotContain(TRACE_ID.toUpperCase(), "b7ad6b716920333\"", "12345670", "dpl.core", "2026-");
        assertThat(CONTRACT.requestErrors(call))
                .as("the independent validator refuses it too")
                .isNotEmpty();
        assertThat(sim.records()).isEmpty();
        assertThat(sim.acknowledgements()).isZero();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "2026-12-01T09:31:05Z",
                "2026-12-01t09:31:05z",
                "2026-12-01T10:31:05+01:00",
                "2026-12-01T09:31:05.123456789123Z",
                "2026-12-01T04:01:05.5-05:30"
            })
    void everyRfc3339DateTimeIsAccepted(String dateTime) {
        Map<String, Object> body = record("b7ad6b7169203331");
        body.put("start_time", dateTime);

        SimulatorHttp.Response response = record(TRACEPARENT, body);

        assertThat(response.status()).as(response.body()).isEqualTo(201);
        assertThat(sim.records().getFirst().startTime())
                .isBetween(Instant.parse("2026-12-01T09:31:05Z"), Instant.parse("2026-12-01T09:31:06Z"));
    }

    @Test
    void aMalformedTraceparentIsAnErrorNextToTheBodysOwn() {
        Map<String, Object> body = record("b7ad6b7169203331");
        body.remove("name");

        SimulatorHttp.Response response = call(json(body))
                .header("traceparent", "00-" + TRACE_ID + "-b7ad6b7169203331")
                .send();

        assertProblem(response, 400, LdvSimulator.PROBLEM_ONGELDIGE_INVOER);
        assertThat(response.errors())
                .containsExactlyInAnyOrder(List.of("traceparent", "pattern"), List.of("/name", "required"));
        assertThat(sim.calls()).singleElement().satisfies(received -> {
            assertThat(received.status()).isEqualTo(400);
            assertThat(received.traceparent()).isEqualTo("00-" + TRACE_ID + "-b7ad6b7169203331");
        });
    }

    @Test
    void aBodyThatIsNotJsonIs400() {
        assertThat(call("not json").send().errors()).containsExactly(List.of("/", "syntax"));
        assertThat(call("").send().errors()).containsExactly(List.of("/", "required"));
        assertThat(call(json(record("b7ad6b7169203331")))
                        .header("Content-Type", "application/xml")
                        .send()
                        .errors())
                .containsExactly(List.of("Content-Type", "mediaType"));
    }

    // --- authentication ------------------------------------------------------------------------------------

    @ParameterizedTest
    @ValueSource(strings = {"", "Bearer dev-profielservice-token", "Bearer DEV-LDV-TOKEN", "Token dev-ldv-token"})
    void withoutTheConfiguredBearerTokenItIs401AndStoresNothing(String authorization) {
        SimulatorHttp.Call unauthorised = call(json(record("b7ad6b7169203331")))
                .header("Authorization", authorization.isEmpty() ? null : authorization);
        SimulatorHttp.Response response = CONTRACT.conforming(unauthorised, unauthorised.send());

        assertProblem(response, 401, LdvSimulator.PROBLEM_NIET_GEAUTHENTICEERD);
        assertThat(response.header("WWW-Authenticate")).contains("Bearer");
        assertThat(sim.records()).isEmpty();
        assertThat(sim.calls()).singleElement().extracting(ReceivedCall::status).isEqualTo(401);
    }

    @Test
    void headerValuesAreComparedExactlyOnOneKeptAliveConnection() throws Exception {
        // Jetty's default header cache would hand the second token over as the cached lower-case first one
        Map<String, String> valid = Map.of(
                "Content-Type", "application/json", "Authorization", "Bearer " + LdvSimulator.DEFAULT_BEARER_TOKEN);
        Map<String, String> upper = Map.of(
                "Content-Type",
                "application/json",
                "Authorization",
                "Bearer " + LdvSimulator.DEFAULT_BEARER_TOKEN.toUpperCase());
        try (KeptAliveConnection connection = new KeptAliveConnection(sim.port())) {
            assertThat(connection.post(LdvSimulator.RECORD_PATH, valid, json(record("b7ad6b7169203331"))))
                    .isEqualTo(201);
            assertThat(connection.post(LdvSimulator.RECORD_PATH, upper, json(record("b7ad6b7169203332"))))
                    .isEqualTo(401);
            assertThat(connection.post(LdvSimulator.RECORD_PATH, valid, json(record("b7ad6b7169203333"))))
                    .isEqualTo(201);
        }
        assertThat(sim.records())
                .extracting(LdvSimulator.Record::spanId)
                .containsExactly("b7ad6b7169203331", "b7ad6b7169203333");
    }

    @Test
    void theTokenIsConfigurable() {
        try (LdvSimulator other = LdvSimulator.start(
                LdvSimulator.Config.builder().bearerToken("platform-token").build())) {
            SimulatorHttp.Call call = new SimulatorHttp.Call(
                            "http://127.0.0.1:" + other.port(), LdvSimulator.RECORD_PATH)
                    .body(json(record("b7ad6b7169203331")));
            assertThat(call.bearer(LdvSimulator.DEFAULT_BEARER_TOKEN).send().status())
                    .isEqualTo(401);
            assertThat(call.bearer("platform-token").send().status()).isEqualTo(201);
            assertThat(other.records()).hasSize(1);
            assertThat(other.baseUrl()).isEqualTo("http://127.0.0.1:" + other.port() + "/api/ldv/v1");
        }
    }

    // --- faults on top -------------------------------------------------------------------------------------

    @Test
    void aPriorityOneOutageWinsUntilReset() {
        sim.wireMock()
                .stubFor(post(urlPathEqualTo(LdvSimulator.RECORD_PATH))
                        .atPriority(1)
                        .willReturn(LdvSimulator.unavailable()));
        SimulatorHttp.Call call = call(json(record("b7ad6b7169203331")));

        SimulatorHttp.Response unavailable = CONTRACT.conforming(call, call.send());
        assertThat(unavailable.status()).isEqualTo(503);
        assertThat(sim.records()).isEmpty();

        sim.reset();

        assertThat(call.send().status()).isEqualTo(201);
        assertThat(sim.records()).hasSize(1);
    }

    @Test
    void a201OutsideTheContractCanBeStubbedOnTop() {
        sim.wireMock()
                .stubFor(post(urlPathEqualTo(LdvSimulator.RECORD_PATH))
                        .atPriority(1)
                        .willReturn(aResponse()
                                .withStatus(201)
                                .withHeader("Content-Type", "application/json")
                                .withHeader("API-Version", LdvSimulator.API_VERSION)
                                .withBody("{\"ok\":true}")));
        SimulatorHttp.Call call = call(json(record("b7ad6b7169203331")));

        SimulatorHttp.Response response = call.send();

        assertThat(response.status()).isEqualTo(201);
        assertThatThrownBy(() -> CONTRACT.conforming(call, response))
                .as("the oracle sees that this 201 is no acknowledgement")
                .isInstanceOf(AssertionError.class);
        assertThat(sim.records()).isEmpty();
    }

    @Test
    void aFaultStubNamingTheTransformerStoresTheRecordButTheCallerSeesNoAnswer() {
        sim.wireMock()
                .stubFor(post(urlPathEqualTo(LdvSimulator.RECORD_PATH))
                        .atPriority(1)
                        .willReturn(aResponse()
                                .withTransformers(LdvSimulator.RECORD_TRANSFORMER)
                                .withFault(Fault.CONNECTION_RESET_BY_PEER)));

        assertThatThrownBy(() -> call(json(record("b7ad6b7169203331"))).send())
                .isInstanceOf(UncheckedIOException.class);

        assertThat(sim.records()).hasSize(1);
    }

    @Test
    void otherMethodsAndPathsAreProblemsWithTheApiVersion() {
        SimulatorHttp.Response get = call("").method("GET").send();
        assertThat(get.status()).isEqualTo(405);
        assertThat(get.header("API-Version")).contains("1.0.0");
        SimulatorHttp.Response unknown = new SimulatorHttp.Call(
                        "http://127.0.0.1:" + sim.port(), "/api/ldv/v2/dataverwerkingen")
                .bearer(sim.bearerToken())
                .body("{}")
                .send();
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.header("API-Version")).contains("1.0.0");
    }

    // --- logs ----------------------------------------------------------------------------------------------

    @Test
    void logsCarryRecordIdsAndErrorCodesOnly() {
        List<String> log = new CopyOnWriteArrayList<>();
        try (LdvSimulator own =
                LdvSimulator.start(LdvSimulator.Config.builder().log(log::add).build())) {
            Map<String, Object> personal = record("b7ad6b7169203331");
            personal.put("name", "info@voorbeeldbedrijf.nl");
            personal.put("attributes", List.of(Map.of("key", "dpl.core.data_subject_id", "value", "12345670")));
            Map<String, Object> invalid = new LinkedHashMap<>(personal);
            invalid.put("trace_id", "12345670");
            for (Map<String, Object> body : List.of(personal, personal, invalid)) {
                new SimulatorHttp.Call("http://127.0.0.1:" + own.port(), LdvSimulator.RECORD_PATH)
                        .bearer(own.bearerToken())
                        .body(json(body))
                        .send();
            }
        }

        assertThat(log).hasSize(3);
        assertThat(log.get(0)).contains(TRACE_ID + "-b7ad6b7169203331", "201");
        assertThat(log.get(2)).contains("400", "/trace_id:pattern");
        assertThat(log).allSatisfy(line -> assertThat(line).doesNotContain(NOT_IN_LOGS));
    }

    // --- helpers -------------------------------------------------------------------------------------------

    /** A valid record, as a mutable map in contract order. */
    private static Map<String, Object> record(String spanId) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("trace_id", TRACE_ID);
        body.put("span_id", spanId);
        body.put("parent_span_id", "00f067aa0ba902b7");
        body.put("name", "nmc.notifynl.email-versturen");
        body.put("start_time", "2026-12-01T09:31:05.123Z");
        body.put("end_time", "2026-12-01T09:31:05.123456789+01:00");
        body.put("status_code", "STATUS_CODE_OK");
        body.put("resource", Map.of("attributes", List.of(Map.of("key", "service.name", "value", "nmc"))));
        body.put(
                "attributes",
                new ArrayList<>(List.of(
                        Map.of(
                                "key",
                                "dpl.core.processing_activity_id",
                                "value",
                                "https://register.example.nl/verwerkingsactiviteiten/notificeren"),
                        Map.of("key", "dpl.core.data_subject_id", "value", "c2VjcmV0LXBzZXVkb255bQ"),
                        Map.of("key", "dpl.core.data_subject_id_type", "value", "kvk-hmac"))));
        return body;
    }

    private static SimulatorHttp.Call call(String body) {
        return new SimulatorHttp.Call("http://127.0.0.1:" + sim.port(), LdvSimulator.RECORD_PATH)
                .bearer(sim.bearerToken())
                .body(body);
    }

    /** A record, checked by the independent validator: request and (for a declared status) response. */
    private static SimulatorHttp.Response record(String traceparent, Map<String, Object> body) {
        SimulatorHttp.Call call = call(json(body)).header("traceparent", traceparent);
        assertThat(CONTRACT.requestErrors(call)).isEmpty();
        return CONTRACT.conforming(call, call.send());
    }

    private static String json(Object value) {
        try {
            return SimulatorHttp.JSON.writeValueAsString(value);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
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
}
