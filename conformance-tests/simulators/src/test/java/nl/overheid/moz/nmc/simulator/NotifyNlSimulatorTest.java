package nl.overheid.moz.nmc.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The NotifyNL simulator as NotifyNL is (the NMC's ARCHITECTURE §7.4, "NotifyNL's answers"; the sources are named in
 * {@code api-spec/notifynl.yaml}): every check of a send in NotifyNL's order with its exact body, trial mode with a
 * team, the daily and the rate limit, templates with placeholders and {@code GET /v2/template/{id}}, a revoked key
 * and an archived service, the 72-hour timeout with its receipt and none after a final status, complaint callbacks,
 * timestamps with six fraction digits and {@code Z}. Every answer is also checked by an independent validator against
 * {@code api-spec/notifynl.yaml}.
 */
class NotifyNlSimulatorTest {

    private static final SimulatorHttp.Oracle CONTRACT = new SimulatorHttp.Oracle("notifynl.yaml");
    private static final Pattern TIMESTAMP = Pattern.compile("^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{6}Z$");
    private static final String KEY = "een-11111111-1111-4111-8111-111111111111-aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa";
    private static final String OTHER_KEY =
            "twee-22222222-2222-4222-8222-222222222222-bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb";
    private static final UUID PLAIN = UUID.fromString("10000000-0000-4000-8000-000000000001");
    private static final UUID NAAM = UUID.fromString("10000000-0000-4000-8000-000000000002");
    private static final UUID SMS = UUID.fromString("10000000-0000-4000-8000-000000000003");
    private static final UUID OTHERS = UUID.fromString("20000000-0000-4000-8000-000000000001");
    private static final String ADDRESS = "iemand@example.nl";

    /** The simulation's time, moved by the tests. */
    private static final class MovingClock extends Clock {
        private volatile Instant now = Instant.parse("2026-12-01T10:00:00Z");

        void advance(Duration duration) {
            now = now.plus(duration);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }

    private final MovingClock clock = new MovingClock();
    private final List<JsonNode> callbacks = new CopyOnWriteArrayList<>();
    private HttpServer receiver;
    private NotifyNlSimulator sim;

    @BeforeEach
    void start() throws Exception {
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/callback", exchange -> {
            callbacks.add(SimulatorHttp.JSON.readTree(exchange.getRequestBody()));
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        receiver.start();
        sim = NotifyNlSimulator.start(NotifyNlSimulator.Config.builder()
                .apiKey(KEY)
                .callbackBearerToken("token-van-de-dienst")
                .templates(List.of(
                        NotifyNlSimulator.Template.email(PLAIN),
                        new NotifyNlSimulator.Template(
                                NAAM,
                                "Met naam",
                                "email",
                                "Bericht voor ((naam))",
                                "Beste ((naam)),\n((dossier nummer))((extra??Er is meer.))"),
                        NotifyNlSimulator.Template.email(SMS).ofType("sms")))
                .addService(new NotifyNlSimulator.Service(OTHER_KEY, "token-van-de-ander", Set.of(OTHERS)))
                .callbackUrl(
                        URI.create("http://127.0.0.1:" + receiver.getAddress().getPort() + "/callback"))
                .callbackDelay(Duration.ZERO)
                .clock(clock)
                .build());
    }

    @AfterEach
    void stop() {
        sim.close();
        receiver.stop(0);
    }

    // ---- the request

    /**
     * notifynl-utils' whitespace rule (formatters.strip_and_remove_obscure_whitespace at 7f8ffc3): no-break spaces
     * and zero-width characters removed anywhere, only Python's string.whitespace stripped from the ends, and its
     * Unicode {@code \s} refused in the host.
     */
    @Test
    void anAddressIsJudgedByNotifyNlsOwnWhitespaceRule() {
        assertThat(EmailAddresses.isValid("info@voorbeeld.nl\u2003")).isFalse();
        assertThat(EmailAddresses.isValid("info@voorbeeld.nl\u001f")).isFalse();
        assertThat(EmailAddresses.isValid("info@voor\u00a0beeld.nl\u202f")).isTrue();
        assertThat(EmailAddresses.isValid("\tinfo@voorbeeld.nl\n")).isTrue();
        assertThat(EmailAddresses.isValid("info@\uD83D\uDE00.nl")).isTrue();
    }

    @Test
    void theRequestSchemaAllowsNoOtherPropertiesAndSaysWhatIsWrongInNotifyNlsWords() {
        SimulatorHttp.Response extra =
                send(Map.of("email_address", ADDRESS, "template_id", PLAIN.toString(), "foo", 1, "bar", true));
        assertError(extra, 400, "ValidationError", "Additional properties are not allowed (bar, foo were unexpected)");

        assertThat(messages(send(Map.of())))
                .containsExactly("email_address is a required property", "template_id is a required property");
        assertThat(messages(send(Map.of("email_address", "geen-adres"))))
                .containsExactly("email_address Not a valid email address", "template_id is a required property");
        String longReference = "r".repeat(1001);
        assertThat(messages(send(
                        Map.of("email_address", ADDRESS, "template_id", PLAIN.toString(), "reference", longReference))))
                .containsExactly("reference " + longReference + " is too long");
        assertThat(send(Map.of(
                                "email_address",
                                ADDRESS,
                                "template_id",
                                PLAIN.toString(),
                                "reference",
                                "r".repeat(1000)))
                        .status())
                .isEqualTo(201);
        assertThat(messages(send(Map.of(
                        "email_address",
                        ADDRESS,
                        "template_id",
                        PLAIN.toString(),
                        "one_click_unsubscribe_url",
                        "http://example.nl/uit"))))
                .containsExactly("one_click_unsubscribe_url is not a valid https url");
        assertThat(messages(send(Map.of("email_address", 123, "template_id", "abc", "personalisation", List.of("a")))))
                .containsExactly(
                        "email_address 123 is not of type string",
                        "template_id is not a valid UUID",
                        "personalisation [a] is not of type object");
        assertError(sendRaw("geen json"), 400, "BadRequestError", "Invalid JSON supplied in POST data");
    }

    // ---- the template and its placeholders

    @Test
    void theTemplateDecidesWhatIsMissingAndGetTemplateListsItsPlaceholders() {
        assertError(
                send(naam(Map.of())), 400, "BadRequestError", "Missing personalisation: naam, dossier nummer, extra");
        assertError(
                send(naam(Map.of("NAAM", "Jansen", "dossier_nummer", "42"))),
                400,
                "BadRequestError",
                "Missing personalisation: extra");
        SimulatorHttp.Response sent = send(naam(Map.of("NAAM", "Jansen", "dossier_nummer", "42", "extra", "ja")));
        assertThat(sent.status()).as(sent.body()).isEqualTo(201);
        assertThat(sent.json().path("content").path("subject").asText()).isEqualTo("Bericht voor Jansen");
        assertThat(sent.json().path("content").path("body").asText()).isEqualTo("Beste Jansen,\n42Er is meer.");

        SimulatorHttp.Response template = get("/v2/template/" + NAAM);
        assertThat(template.status()).isEqualTo(200);
        assertThat(template.json().path("personalisation").fieldNames())
                .as("every placeholder once; Flask sorts the keys of every object")
                .toIterable()
                .containsExactly("dossier nummer", "extra", "naam");
        assertThat(template.json()
                        .path("personalisation")
                        .path("naam")
                        .path("required")
                        .asBoolean())
                .isTrue();
        assertThat(template.body()).as("keys sorted, as Flask writes them").startsWith("{\"body\":");
        assertThat(template.json().path("created_at").asText()).matches(TIMESTAMP);

        assertError(get("/v2/template/" + OTHERS), 404, "NoResultFound", "No result found");
        assertError(get("/v2/template/" + UUID.randomUUID()), 404, "NoResultFound", "No result found");
        assertError(get("/v2/template/geen-uuid"), 400, "ValidationError", "id is not a valid UUID");

        assertError(
                send(Map.of("email_address", ADDRESS, "template_id", OTHERS.toString())),
                400,
                "BadRequestError",
                "Template not found");
        assertError(
                send(Map.of("email_address", ADDRESS, "template_id", SMS.toString())),
                400,
                "BadRequestError",
                "sms template is not suitable for email notification");
        sim.service().deleteTemplate(PLAIN);
        assertError(send(plain()), 400, "BadRequestError", "Template has been deleted");
        assertThat(get("/v2/template/" + PLAIN).status())
                .as("an archived template is still answered")
                .isEqualTo(200);
        sim.service().template(NotifyNlSimulator.Template.email(PLAIN, "naam"));
        assertError(send(plain()), 400, "BadRequestError", "Missing personalisation: naam");
    }

    // ---- the service: trial mode, team key, permission, key, archive

    @Test
    void inTrialModeALiveKeySendsOnlyToTheTeam() {
        sim.service().keyType(NotifyNlSimulator.KeyType.NORMAL).trialMode("Lid@Team.nl");
        SimulatorHttp.Response refused = send(plain());
        assertError(refused, 400, "BadRequestError", NotifyNlSimulator.TRIAL_MODE);
        assertThat(refused.body())
                .as("non-ASCII escaped, as Flask writes it")
                .contains("Can\\u2019t send to this recipient when service is in trial mode \\u2013 see");
        assertThat(send(Map.of("email_address", "lid@team.nl", "template_id", PLAIN.toString()))
                        .status())
                .isEqualTo(201);

        sim.service().keyType(NotifyNlSimulator.KeyType.TEST);
        assertThat(send(plain()).status()).as("a test key sends to anyone").isEqualTo(201);
        sim.service().keyType(NotifyNlSimulator.KeyType.TEAM);
        assertError(send(plain()), 400, "BadRequestError", NotifyNlSimulator.TEAM_KEY);
        sim.service().keyType(NotifyNlSimulator.KeyType.NORMAL).leaveTrialMode();
        assertThat(send(plain()).status()).isEqualTo(201);
    }

    @Test
    void aServiceWithoutPermissionARevokedKeyAndAnArchivedServiceAreRefused() {
        sim.service().emailPermission(false);
        assertError(send(plain()), 400, "BadRequestError", "Service is not allowed to send emails");
        sim.service().emailPermission(true).revokeKey();
        assertError(send(plain()), 403, "AuthError", "Invalid token: API key revoked");
        assertError(get("/v2/notifications?reference=x"), 403, "AuthError", "Invalid token: API key revoked");
        sim.service().reset().archive();
        assertError(send(plain()), 403, "AuthError", "Invalid token: service is archived");
        assertError(get("/v2/template/" + PLAIN), 403, "AuthError", "Invalid token: service is archived");
        sim.reset();
        assertThat(send(plain()).status()).isEqualTo(201);
    }

    // ---- the limits

    @Test
    void theDailyLimitCountsAcceptedEmailsPerUtcDayAndNotForTestKeys() {
        sim.service().dailyLimit(2);
        for (int i = 0; i < 3; i++) {
            assertThat(send(plain()).status())
                    .as("a test key has no daily limit")
                    .isEqualTo(201);
        }
        sim.service().keyType(NotifyNlSimulator.KeyType.NORMAL);
        assertThat(send(plain()).status()).isEqualTo(201);
        assertThat(send(Map.of("email_address", ADDRESS)).status())
                .as("refused sends do not count")
                .isEqualTo(400);
        assertThat(send(plain()).status()).isEqualTo(201);
        assertError(send(plain()), 429, "TooManyRequestsError", "Exceeded send limits (email: 2) for today");
        assertError(send(Map.of()), 429, "TooManyRequestsError", "Exceeded send limits (email: 2) for today");

        clock.advance(Duration.ofHours(14)); // past 00:00 UTC
        assertThat(send(plain()).status()).isEqualTo(201);
    }

    @Test
    void theRateLimitCountsEveryRequestOverASlidingMinute() {
        sim.service().rateLimit(2);
        assertThat(send(plain()).status()).isEqualTo(201);
        assertThat(send(Map.of()).status()).isEqualTo(400);
        assertError(
                send(plain()),
                429,
                "RateLimitError",
                "Exceeded rate limit for key type TEST of 2 requests per 60 seconds");
        clock.advance(Duration.ofSeconds(61));
        sim.service().keyType(NotifyNlSimulator.KeyType.NORMAL);
        assertThat(send(plain()).status()).isEqualTo(201);
        send(plain());
        assertError(
                send(plain()),
                429,
                "RateLimitError",
                "Exceeded rate limit for key type LIVE of 2 requests per 60 seconds");
    }

    // ---- after the send

    @Test
    void anEmailStillSendingAfter72HoursTimesOutWithItsReceiptAndAFinalStatusGetsNoOther() throws Exception {
        UUID stuck =
                id(send(Map.of("email_address", NotifyNlSimulator.PENDING_ADDRESS, "template_id", PLAIN.toString())));
        UUID delivered = id(send(plain()));
        assertThat(sim.awaitCallbacks(Duration.ofSeconds(10))).isTrue();
        assertThat(callbacks).hasSize(1);

        clock.advance(Duration.ofHours(71));
        assertThat(sim.runNightlyTimeout()).isZero();
        clock.advance(Duration.ofHours(2));
        assertThat(sim.runNightlyTimeout()).isOne();
        assertThat(sim.awaitCallbacks(Duration.ofSeconds(10))).isTrue();
        assertThat(callbacks).hasSize(2);
        assertThat(callbacks.get(1).path("id").asText()).isEqualTo(stuck.toString());
        assertThat(callbacks.get(1).path("status").asText()).isEqualTo("temporary-failure");
        assertThat(get("/v2/notifications/" + stuck).json().path("status").asText())
                .isEqualTo("temporary-failure");

        clock.advance(Duration.ofDays(1));
        assertThat(sim.runNightlyTimeout()).as("final statuses stay final").isZero();
        assertThat(sim.awaitCallbacks(Duration.ofSeconds(10))).isTrue();
        assertThat(callbacks).hasSize(2);
        assertThat(get("/v2/notifications/" + delivered).json().path("status").asText())
                .isEqualTo("delivered");
    }

    @Test
    void aComplaintIsACallbackOfItsOwnAndChangesNoStatus() throws Exception {
        UUID id = id(send(Map.of(
                "email_address",
                NotifyNlSimulator.COMPLAINT_ADDRESS,
                "template_id",
                PLAIN.toString(),
                "reference",
                "ref-klacht")));
        assertThat(sim.awaitCallbacks(Duration.ofSeconds(10))).isTrue();
        assertThat(callbacks).hasSize(2);
        JsonNode complaint = callbacks.stream()
                .filter(callback -> callback.has("complaint_id"))
                .findFirst()
                .orElseThrow();
        assertThat(complaint.fieldNames())
                .toIterable()
                .containsExactly("notification_id", "complaint_id", "reference", "to", "complaint_date");
        assertThat(complaint.path("notification_id").asText()).isEqualTo(id.toString());
        assertThat(complaint.path("reference").asText()).isEqualTo("ref-klacht");
        assertThat(complaint.path("complaint_date").asText()).matches(TIMESTAMP);
        assertThat(get("/v2/notifications/" + id).json().path("status").asText())
                .isEqualTo("delivered");

        sim.complaint(id);
        assertThat(sim.awaitCallbacks(Duration.ofSeconds(10))).isTrue();
        assertThat(callbacks).hasSize(3);
    }

    /** NotifyNL's list schema allows no other query parameters ({@code get_notifications_request}). */
    @Test
    void theListRefusesAQueryParameterItsSchemaDoesNotName() {
        assertError(
                get("/v2/notifications?reference=ref&page=2"),
                400,
                "ValidationError",
                "Additional properties are not allowed (page was unexpected)");
        assertThat(get("/v2/notifications?reference=ref&template_type=email&include_jobs=true")
                        .status())
                .isEqualTo(200);
    }

    @Test
    void timestampsHaveSixFractionDigitsAndZ() {
        UUID id = id(send(plain()));
        JsonNode notification = get("/v2/notifications/" + id).json();
        assertThat(notification.path("created_at").asText()).matches(TIMESTAMP);
        assertThat(notification.path("sent_at").asText()).matches(TIMESTAMP);
        assertThat(notification.path("completed_at").asText()).matches(TIMESTAMP);
        JsonNode list = get("/v2/notifications?reference=ref").json();
        assertThat(list.path("notifications").get(0).path("created_at").asText())
                .matches(TIMESTAMP);
    }

    @Test
    void aSmokeTestAddressIsAnsweredAndForgotten() {
        SimulatorHttp.Response sent = send(Map.of(
                "email_address", "simulate-delivered@notifications.service.gov.uk", "template_id", PLAIN.toString()));
        assertThat(sent.status()).isEqualTo(201);
        assertThat(sim.sentNotifications()).isEmpty();
        assertError(get("/v2/notifications/" + id(sent)), 404, "NoResultFound", "No result found");
    }

    // ---- helpers

    private static Map<String, Object> plain() {
        return Map.of("email_address", ADDRESS, "template_id", PLAIN.toString(), "reference", "ref");
    }

    private static Map<String, Object> naam(Map<String, Object> personalisation) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("email_address", ADDRESS);
        body.put("template_id", NAAM.toString());
        body.put("personalisation", personalisation);
        return body;
    }

    private SimulatorHttp.Response send(Map<String, Object> body) {
        try {
            return sendRaw(SimulatorHttp.JSON.writeValueAsString(body));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private SimulatorHttp.Response sendRaw(String body) {
        SimulatorHttp.Call call = new SimulatorHttp.Call(sim.baseUrl(), "/v2/notifications/email")
                .bearer(token(KEY))
                .body(body);
        return conforming(call, call.send());
    }

    private SimulatorHttp.Response get(String pathAndQuery) {
        SimulatorHttp.Call call = new SimulatorHttp.Call(sim.baseUrl(), pathAndQuery)
                .method("GET")
                .header("Content-Type", null)
                .bearer(token(KEY));
        return conforming(call, call.send());
    }

    /** Every answer is one api-spec/notifynl.yaml declares (checked by Atlassian's validator, not by this code). */
    private static SimulatorHttp.Response conforming(SimulatorHttp.Call call, SimulatorHttp.Response response) {
        int query = call.path.indexOf('?');
        SimulatorHttp.Call path = new SimulatorHttp.Call(
                        call.rootUrl, query < 0 ? call.path : call.path.substring(0, query))
                .method(call.method);
        assertThat(CONTRACT.responseErrors(path, response))
                .as(call.method + " " + call.path + " " + response.status() + " " + response.body())
                .isEmpty();
        return response;
    }

    private static void assertError(SimulatorHttp.Response response, int status, String error, String message) {
        assertThat(response.status()).as(response.body()).isEqualTo(status);
        assertThat(response.json())
                .isEqualTo(SimulatorHttp.JSON
                        .createObjectNode()
                        .<com.fasterxml.jackson.databind.node.ObjectNode>set(
                                "errors",
                                SimulatorHttp.JSON
                                        .createArrayNode()
                                        .add(SimulatorHttp.JSON
                                                .createObjectNode()
                                                .put("error", error)
                                                .put("message", message)))
                        .put("status_code", status));
        assertThat(response.body()).startsWith("{\"errors\":[").endsWith(",\"status_code\":" + status + "}");
    }

    private static List<String> messages(SimulatorHttp.Response response) {
        assertThat(response.status()).isEqualTo(400);
        return java.util.stream.StreamSupport.stream(
                        response.json().path("errors").spliterator(), false)
                .peek(error -> assertThat(error.path("error").asText()).isEqualTo("ValidationError"))
                .map(error -> error.path("message").asText())
                .toList();
    }

    private static UUID id(SimulatorHttp.Response response) {
        assertThat(response.status()).as(response.body()).isEqualTo(201);
        return UUID.fromString(response.json().path("id").asText());
    }

    /** NotifyNL's API token, made with Nimbus: HS256, {@code iss} the service id, {@code iat} now (real time). */
    private static String token(String apiKey) {
        try {
            SignedJWT jwt = new SignedJWT(
                    new JWSHeader(JWSAlgorithm.HS256),
                    new JWTClaimsSet.Builder()
                            .issuer(apiKey.substring(apiKey.length() - 73, apiKey.length() - 37))
                            .issueTime(new Date())
                            .build());
            jwt.sign(new MACSigner(apiKey.substring(apiKey.length() - 36).getBytes(StandardCharsets.UTF_8)));
            return jwt.serialize();
        } catch (com.nimbusds.jose.JOSEException e) {
            throw new IllegalStateException(e);
        }
    }
}
