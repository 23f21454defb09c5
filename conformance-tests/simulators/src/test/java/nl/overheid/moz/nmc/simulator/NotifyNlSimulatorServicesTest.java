package nl.overheid.moz.nmc.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Date;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The NotifyNL simulator with several services, as Notify behaves: a request acts for the service whose key signed
 * it (the JWT made here with Nimbus, independently of the NMC's client), a template of another service is Notify's
 * 400 {@code BadRequestError} "Template not found", another service's notifications do not exist for it, and each
 * service's receipts carry its own callback token.
 */
class NotifyNlSimulatorServicesTest {

    private static final String KEY_1 = "een-11111111-1111-4111-8111-111111111111-aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa";
    private static final String KEY_2 =
            "twee-22222222-2222-4222-8222-222222222222-bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb";
    /** A service that lists no templates. */
    private static final String KEY_3 =
            "drie-33333333-3333-4333-8333-333333333333-cccccccc-cccc-4ccc-8ccc-cccccccccccc";

    private static final UUID TEMPLATE_1 = UUID.fromString("10000000-0000-4000-8000-000000000001");
    private static final UUID TEMPLATE_2 = UUID.fromString("20000000-0000-4000-8000-000000000002");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private final Map<String, String> callbackTokens = new ConcurrentHashMap<>();
    private HttpServer receiver;
    private NotifyNlSimulator simulator;

    @BeforeEach
    void start() throws Exception {
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/callback", exchange -> {
            JsonNode receipt = JSON.readTree(exchange.getRequestBody());
            callbackTokens.put(
                    receipt.path("reference").asText(),
                    exchange.getRequestHeaders().getFirst("Authorization"));
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        receiver.start();
        simulator = NotifyNlSimulator.start(NotifyNlSimulator.Config.builder()
                .apiKey(KEY_1)
                .callbackBearerToken("token-of-service-1")
                .templateIds(Set.of(TEMPLATE_1))
                .addService(new NotifyNlSimulator.Service(KEY_2, "token-of-service-2", Set.of(TEMPLATE_2)))
                .addService(new NotifyNlSimulator.Service(KEY_3, "token-of-service-3", Set.of()))
                .callbackUrl(
                        URI.create("http://127.0.0.1:" + receiver.getAddress().getPort() + "/callback"))
                .callbackDelay(Duration.ZERO)
                .build());
    }

    @AfterEach
    void stop() {
        simulator.close();
        receiver.stop(0);
    }

    @Test
    void aSendActsForTheServiceWhoseKeySignedItAndOnlyWithItsOwnTemplates() throws Exception {
        HttpResponse<String> sent = send(token(KEY_2), TEMPLATE_2, "ref-2");
        assertThat(sent.statusCode()).as(sent.body()).isEqualTo(201);
        UUID id = UUID.fromString(JSON.readTree(sent.body()).path("id").asText());
        assertThat(simulator.sentNotification(id))
                .get()
                .extracting(NotifyNlSimulator.SentNotification::serviceId)
                .isEqualTo(UUID.fromString(serviceId(KEY_2)));
        assertThat(JSON.readTree(sent.body()).path("template").path("uri").asText())
                .contains("/services/" + serviceId(KEY_2) + "/templates/" + TEMPLATE_2);

        for (var wrong :
                Map.of(KEY_1, TEMPLATE_2, KEY_2, TEMPLATE_1, KEY_3, TEMPLATE_1).entrySet()) {
            HttpResponse<String> refused = send(token(wrong.getKey()), wrong.getValue(), "ref-x");
            assertThat(refused.statusCode()).isEqualTo(400);
            assertThat(JSON.readTree(refused.body())).isEqualTo(JSON.readTree("""
                    {"errors": [{"error": "BadRequestError", "message": "Template not found"}], "status_code": 400}
                    """));
        }
        assertThat(simulator.sentNotifications()).hasSize(1);
    }

    @Test
    void aServiceThatListsNoTemplatesTakesAnyTemplateNoOtherServiceLists() throws Exception {
        assertThat(send(token(KEY_3), UUID.randomUUID(), "ref-3").statusCode()).isEqualTo(201);
        assertThat(send(token(KEY_3), TEMPLATE_2, "ref-3b").statusCode()).isEqualTo(400);
    }

    @Test
    void aTokenMustBeSignedWithTheSecretOfTheServiceItNames() throws Exception {
        String mixed = sign(serviceId(KEY_2), secret(KEY_1));
        HttpResponse<String> refused = send(mixed, TEMPLATE_2, "ref");
        assertThat(refused.statusCode()).isEqualTo(403);
        assertThat(refused.body()).contains("Invalid token: API key not found");

        HttpResponse<String> unknown = send(sign(UUID.randomUUID().toString(), secret(KEY_1)), TEMPLATE_1, "ref");
        assertThat(unknown.statusCode()).isEqualTo(403);
        assertThat(unknown.body()).contains("Invalid token: service not found");
    }

    @Test
    void anotherServicesNotificationsDoNotExistForAService() throws Exception {
        HttpResponse<String> sent = send(token(KEY_2), TEMPLATE_2, "ref-lookup");
        String id = JSON.readTree(sent.body()).path("id").asText();

        assertThat(get(token(KEY_2), "/v2/notifications/" + id).statusCode()).isEqualTo(200);
        assertThat(get(token(KEY_1), "/v2/notifications/" + id).statusCode()).isEqualTo(404);
        assertThat(JSON.readTree(get(token(KEY_2), "/v2/notifications?reference=ref-lookup")
                                .body())
                        .path("notifications"))
                .hasSize(1);
        assertThat(JSON.readTree(get(token(KEY_1), "/v2/notifications?reference=ref-lookup")
                                .body())
                        .path("notifications"))
                .isEmpty();
    }

    @Test
    void eachServicesReceiptsCarryItsOwnCallbackToken() throws Exception {
        send(token(KEY_1), TEMPLATE_1, "ref-one");
        send(token(KEY_2), TEMPLATE_2, "ref-two");
        assertThat(simulator.awaitCallbacks(Duration.ofSeconds(10))).isTrue();
        assertThat(callbackTokens)
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of("ref-one", "Bearer token-of-service-1", "ref-two", "Bearer token-of-service-2"));
    }

    private HttpResponse<String> send(String jwt, UUID template, String reference) throws Exception {
        String body = JSON.writeValueAsString(Map.of(
                "email_address", "iemand@example.nl", "template_id", template.toString(), "reference", reference));
        return HTTP.send(
                HttpRequest.newBuilder(URI.create(simulator.baseUrl() + "/v2/notifications/email"))
                        .header("Authorization", "Bearer " + jwt)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String jwt, String pathAndQuery) throws Exception {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create(simulator.baseUrl() + pathAndQuery))
                        .header("Authorization", "Bearer " + jwt)
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static String token(String apiKey) throws Exception {
        return sign(serviceId(apiKey), secret(apiKey));
    }

    /** Notify's API token: HS256, {@code iss} the service id, {@code iat} now. */
    private static String sign(String issuer, byte[] secret) throws Exception {
        SignedJWT jwt = new SignedJWT(
                new JWSHeader(JWSAlgorithm.HS256),
                new JWTClaimsSet.Builder().issuer(issuer).issueTime(new Date()).build());
        jwt.sign(new MACSigner(secret));
        return jwt.serialize();
    }

    private static String serviceId(String apiKey) {
        return apiKey.substring(apiKey.length() - 73, apiKey.length() - 37);
    }

    private static byte[] secret(String apiKey) {
        return apiKey.substring(apiKey.length() - 36).getBytes(StandardCharsets.UTF_8);
    }
}
