package nl.overheid.moz.nmc.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import nl.overheid.moz.nmc.testing.Http;
import nl.overheid.moz.nmc.testing.MutableClock;
import nl.overheid.moz.nmc.testing.RunningNmc;
import nl.overheid.moz.nmc.testing.TestDatabase;
import nl.overheid.moz.nmc.testing.TestIam;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The edge of the HTTP server as an attacker or a confused client meets it: every path and method outside the
 * contracts, bodies too large for the API or for the web server, bodies that are not JSON. Each answer is a
 * problem with the right status, never a 500, and every answer — problems, documents, the JWKS, the callback,
 * {@code /observe} — carries {@code API-Version} and the NL API Design Rules' security headers.
 */
class HttpEdgeTest {

    private static final TestDatabase DB = TestDatabase.get();
    private static final TestIam IAM = new TestIam();
    /** Small, so a body over the web server's own limit is quick to send. */
    private static final int MAX_PAYLOAD = 200_000;

    private static final String DECENTRAAL = "/api/nmc/v1/decentraal/notificaties";
    private static RunningNmc nmc;
    private static Http http;
    private static String token;

    @BeforeAll
    static void start() {
        DB.reset();
        nmc = RunningNmc.start(DB, IAM, MutableClock.startingNow(), "server: {max-payload-size: " + MAX_PAYLOAD + "}");
        http = nmc.http();
        token = IAM.token(TestNmc.DV_A);
    }

    @AfterAll
    static void stop() {
        nmc.close();
    }

    @Test
    void unknownPathsAreA404ProblemInsideAndOutsideTheBasePathWithAndWithoutAToken() {
        List<String> unknown = List.of(
                "/",
                "/foo",
                "/.well-known/anything",
                "/.well-known/jwks.json/x",
                "/api",
                "/api/nmc",
                "/api/nmc/v1",
                "/api/nmc/v1/",
                "/api/nmc/v2/notificaties",
                "/api/nmc/v1/bestaat-niet",
                "/api/nmc/v1/notificaties/" + UUID.randomUUID() + "/pogingen",
                "/api/nmc/v1/notificaties/wijzigingen/bevestiging/x",
                "/api/nmc/v1/openapi.xml",
                "/API/NMC/V1/notificaties",
                "/observe/bestaat-niet",
                "/%2e%2e/api/nmc/v1/sleutels");
        for (String path : unknown) {
            for (String method : List.of("GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD")) {
                for (String bearer : new String[] {null, token}) {
                    Http.Response response = http.request(method, path, bearer, null, null);
                    String what = method + " " + path + (bearer == null ? "" : " with a token");
                    assertThat(response.status()).as(what).isEqualTo(404);
                    assertProblemHeaders(response, what, !method.equals("HEAD"));
                }
            }
        }
    }

    @Test
    void aKnownPathWithAnotherMethodIsA405WithAllowBeforeAuthentication() {
        // A fixed path wins over /notificaties/{id}, as in OpenAPI: /notificaties/wijzigingen is not a 400 for a
        // malformed id.
        Map<String, String> allowed = new java.util.LinkedHashMap<>();
        """
                /api/nmc/v1/decentraal/notificaties              POST
                /api/nmc/v1/centraal/notificaties                POST
                /api/nmc/v1/notificaties                         GET
                /api/nmc/v1/notificaties/%s                      GET, DELETE
                /api/nmc/v1/notificaties/wijzigingen             GET
                /api/nmc/v1/notificaties/wijzigingen/bevestiging PUT
                /api/nmc/v1/webhook                              GET
                /api/nmc/v1/webhook/hervatting                   POST
                /api/nmc/v1/sleutels                             GET
                /api/nmc/v1/openapi.json                         GET
                /api/nmc/v1/openapi.yaml                         GET
                /api/nmc/v1/notifynl-callback                    POST
                /.well-known/jwks.json                           GET
                """.formatted(UUID.randomUUID())
                .lines()
                .forEach(line -> allowed.put(line.split(" +", 2)[0], line.split(" +", 2)[1]));
        allowed.forEach((path, allow) -> {
            for (String method : List.of("GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD")) {
                if (List.of(allow.split(", ")).contains(method)) {
                    continue;
                }
                for (String bearer : new String[] {null, token}) {
                    String what = method + " " + path + (bearer == null ? "" : " with a token");
                    Http.Response response = http.request(
                            method,
                            path,
                            bearer,
                            method.equals("GET") || method.equals("HEAD") ? null : "application/json",
                            method.equals("GET") || method.equals("HEAD") ? null : "{}");
                    assertThat(response.status()).as(what).isEqualTo(405);
                    assertThat(response.header("Allow")).as(what).contains(allow);
                    assertProblemHeaders(response, what, !method.equals("HEAD"));
                }
            }
        });
    }

    @Test
    void aProtectedOperationWithoutATokenIsA401Problem() {
        for (String path : List.of(
                "/api/nmc/v1/notificaties?dvRef=x",
                "/api/nmc/v1/notificaties/wijzigingen",
                "/api/nmc/v1/webhook",
                "/api/nmc/v1/notificaties/" + UUID.randomUUID())) {
            Http.Response response = http.get(path, null);
            assertThat(response.status()).as(path).isEqualTo(401);
            assertProblemHeaders(response, path, true);
        }
    }

    @Test
    void everyAnswerCarriesTheSecurityHeadersAndOnlyTheOpenApiDocumentsCors() {
        for (String path : List.of("/api/nmc/v1/openapi.json", "/api/nmc/v1/openapi.yaml")) {
            Http.Response document = http.get(path, null);
            assertThat(document.status()).isEqualTo(200);
            assertSecurityHeaders(document, path, "no-store");
            assertThat(document.header("Access-Control-Allow-Origin")).as(path).contains("*");
        }
        assertThat(http.get("/api/nmc/v1/openapi.json", null).contentType()).startsWith("application/json");
        assertThat(http.get("/api/nmc/v1/openapi.yaml", null).contentType()).startsWith("application/yaml");

        // The JWKS keeps its deliberate cache header: public keys, cached by every webhook receiver for as long as
        // the key schedule allows (webhook.jwks-max-age).
        for (String path : List.of("/.well-known/jwks.json", "/api/nmc/v1/sleutels")) {
            Http.Response jwks = http.get(path, null);
            assertThat(jwks.status()).isEqualTo(200);
            assertThat(jwks.contentType()).startsWith("application/json");
            assertSecurityHeaders(jwks, path, "public, max-age=300");
            assertThat(jwks.header("Access-Control-Allow-Origin")).as(path).isEmpty();
        }

        Http.Response feed = http.get("/api/nmc/v1/notificaties/wijzigingen", token);
        assertThat(feed.status()).isEqualTo(200);
        assertThat(feed.contentType()).startsWith("application/json");
        assertSecurityHeaders(feed, "feed", "no-store");
        assertThat(feed.header("Access-Control-Allow-Origin")).isEmpty();

        Http.Response callback = http.post(
                "/api/nmc/v1/notifynl-callback",
                TestNmc.CALLBACK_TOKEN,
                "{\"id\":\"" + UUID.randomUUID() + "\",\"reference\":\"" + UUID.randomUUID()
                        + "\",\"status\":\"delivered\"}");
        assertThat(callback.status()).isEqualTo(200);
        assertSecurityHeaders(callback, "callback", "no-store");

        for (String path : List.of("/observe/health", "/observe/metrics")) {
            Http.Response observe = http.get(path, null);
            assertThat(observe.status()).as(path).isEqualTo(200);
            assertSecurityHeaders(observe, path, "no-store");
        }
    }

    @Test
    void aBodyOverTheApiLimitIsA413Problem() {
        String big = "{\"dvRef\":\"" + "x".repeat(70_000) + "\"}";
        Http.Response response = http.post(DECENTRAAL, token, big);
        assertThat(response.status()).isEqualTo(413);
        assertProblemHeaders(response, "413", true);
        assertThat(response.json().path("type").asText()).endsWith("/verzoek-te-groot");
        // The rest of the body was read and discarded, not left in the connection.
        assertThat(http.get("/api/nmc/v1/notificaties/wijzigingen", token).status())
                .isEqualTo(200);
    }

    @Test
    void aChunkedBodyOverTheApiLimitIsA413ProblemToo() throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(http.baseUrl() + DECENTRAAL))
                                .header("Authorization", "Bearer " + token)
                                .header("Content-Type", "application/json")
                                // A publisher of unknown length: sent chunked, without Content-Length.
                                .POST(HttpRequest.BodyPublishers.ofInputStream(() ->
                                        new java.io.ByteArrayInputStream(("{\"dvRef\":\"" + "x".repeat(100_000) + "\"}")
                                                .getBytes(StandardCharsets.UTF_8))))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(413);
        assertThat(response.headers().firstValue("Content-Type"))
                .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
    }

    @Test
    void aBodyOverTheWebServersLimitIsA413ProblemBeforeItIsSent() throws Exception {
        // With Expect: 100-continue the refusal comes before the body: nothing is sent into a closed connection.
        HttpResponse<String> response = HttpClient.newBuilder()
                .build()
                .send(
                        HttpRequest.newBuilder(URI.create(http.baseUrl() + DECENTRAAL))
                                .expectContinue(true)
                                .timeout(Duration.ofSeconds(20))
                                .header("Authorization", "Bearer " + token)
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString("x".repeat(MAX_PAYLOAD + 1)))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(413);
        assertThat(response.headers().firstValue("Content-Type"))
                .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(response.headers().firstValue("API-Version")).contains("1.1.0");
        assertThat(response.headers().firstValue("X-Content-Type-Options")).contains("nosniff");
        assertThat(response.body()).contains("\"status\":413");
    }

    @Test
    void aBodyOverTheWebServersLimitGetsAProblemThatAClientReadingFirstCanRead() throws IOException {
        // Helidon answers on the headers alone and closes; the body is never read. A client that reads what came
        // back before sending on finds a complete problem.
        try (Socket socket = new Socket("127.0.0.1", nmc.port())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(("POST " + DECENTRAAL + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token
                            + "\r\nContent-Type: application/json\r\nContent-Length: " + (MAX_PAYLOAD + 1) + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String answer = readAll(socket.getInputStream());
            assertThat(answer)
                    .startsWith("HTTP/1.1 413")
                    .containsIgnoringCase("content-type: application/problem+json")
                    .containsIgnoringCase("api-version: 1.1.0")
                    .containsIgnoringCase("x-frame-options: DENY")
                    .contains("\"status\":413");
        }
    }

    @Test
    void aBodyThatIsNotJsonIsA415Problem() {
        for (String type : List.of(
                "text/plain",
                "application/xml",
                "application/x-www-form-urlencoded",
                "application/jsonx",
                "application/json; charset=iso-8859-1")) {
            Http.Response response = http.request("POST", DECENTRAAL, token, type, "{\"dvRef\":\"x\"}");
            assertThat(response.status()).as(type).isEqualTo(415);
            assertProblemHeaders(response, type, true);
        }
        Http.Response withoutType = http.request("POST", DECENTRAAL, token, null, "{\"dvRef\":\"x\"}");
        assertThat(withoutType.status()).isEqualTo(415);
        Http.Response callback =
                http.request("POST", "/api/nmc/v1/notifynl-callback", TestNmc.CALLBACK_TOKEN, "text/plain", "{}");
        assertThat(callback.status()).isEqualTo(415);
        assertProblemHeaders(callback, "callback", true);
        assertThat(http.request("POST", DECENTRAAL, token, "Application/JSON; charset=UTF-8", "{}")
                        .status())
                .as("the media type is case-insensitive; the body is then checked")
                .isEqualTo(400);
    }

    /**
     * Found by a hostile read: a Content-Type Helidon cannot parse (a parameter without {@code =}, a type without a
     * subtype, an empty value) escaped the media-type check as an unexpected error, a 500 and a SEVERE line with the
     * stack trace, on every route that takes a body. It is not JSON: the 415 of any other type, nothing stored.
     */
    @Test
    void aContentTypeThatDoesNotParseIsA415ProblemWithoutALogLine() throws IOException {
        List<String> stored = DB.query("SELECT count(*) FROM notificatie", null);
        String body = "{\"dvRef\":\"x\",\"berichttype\":\"test-bericht\",\"emailadres\":\"iemand@example.nl\"}";
        try (nl.overheid.moz.nmc.testing.LogWatch logs = nl.overheid.moz.nmc.testing.LogWatch.start()) {
            for (String type : List.of(
                    "application/json;",
                    "application/json; charset",
                    "json",
                    "application/json; ;charset=utf-8",
                    "",
                    "application/json; charset=\"")) {
                for (String path : List.of(DECENTRAAL, DECENTRAAL + "/bulk")) {
                    try (Socket socket = new Socket("127.0.0.1", nmc.port())) {
                        socket.setSoTimeout(10_000);
                        socket.getOutputStream()
                                .write(("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                                                + token + "\r\nContent-Type: " + type + "\r\nContent-Length: "
                                                + body.length() + "\r\nConnection: close\r\n\r\n" + body)
                                        .getBytes(StandardCharsets.US_ASCII));
                        String answer = readAll(socket.getInputStream());
                        assertThat(answer)
                                .as(path + " with Content-Type '" + type + "'")
                                .startsWith("HTTP/1.1 415")
                                .containsIgnoringCase("content-type: application/problem+json");
                    }
                }
            }
            Http.Response callback = http.request(
                    "POST", "/api/nmc/v1/notifynl-callback", TestNmc.CALLBACK_TOKEN, "application/json;", "{}");
            assertThat(callback.status()).isEqualTo(415);
            assertThat(callback.header("API-Version"))
                    .as("the callback contract's own info.version")
                    .hasValue("1.0.0");
            assertThat(logs.drain()).isEmpty();
        }
        assertThat(DB.query("SELECT count(*) FROM notificatie", null)).isEqualTo(stored);
    }

    /**
     * The contract takes JSON in UTF-8 only (RFC 8259 §8.1). Found by a hostile read: Jackson detects UTF-16 and
     * UTF-32 and read such a body, so it was stored while anything logging the bytes as UTF-8 saw something else.
     */
    @Test
    void aBodyInUtf16OrUtf32IsA415AndStoresNothing() throws IOException {
        List<String> stored = DB.query("SELECT count(*) FROM notificatie", null);
        String single = "{\"dvRef\":\"utf16\",\"berichttype\":\"test-bericht\",\"emailadres\":\"iemand@example.nl\"}";
        String bulk = "{\"notificaties\":[" + single + "]}";
        for (java.nio.charset.Charset charset : List.of(
                StandardCharsets.UTF_16LE,
                StandardCharsets.UTF_16BE,
                StandardCharsets.UTF_16,
                java.nio.charset.Charset.forName("UTF-32LE"))) {
            for (String path : List.of(DECENTRAAL, DECENTRAAL + "/bulk")) {
                byte[] body = (path.endsWith("/bulk") ? bulk : single).getBytes(charset);
                try (Socket socket = new Socket("127.0.0.1", nmc.port())) {
                    socket.setSoTimeout(10_000);
                    var out = socket.getOutputStream();
                    out.write(("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token
                                    + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length
                                    + "\r\nConnection: close\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
                    out.write(body);
                    assertThat(readAll(socket.getInputStream()))
                            .as(path + " in " + charset)
                            .startsWith("HTTP/1.1 415");
                }
            }
        }
        assertThat(DB.query("SELECT count(*) FROM notificatie", null)).isEqualTo(stored);
    }

    /** "?cursor" without a value read as no cursor: a client that lost its cursor's value re-read its whole feed. */
    @Test
    void aFeedParameterWithoutAValueIsA400() {
        for (String query : List.of("?cursor", "?limit", "?cursor&limit=5")) {
            Http.Response response = http.get("/api/nmc/v1/notificaties/wijzigingen" + query, token);
            assertThat(response.status()).as(query).isEqualTo(400);
            assertProblemHeaders(response, query, true);
        }
    }

    /**
     * RFC 9110 §9.3.2: an answer to HEAD has no content. Found by a hostile read: the 405 or 404 problem to a HEAD was
     * written with its body, so a client that sent its next request on the same connection read that body as the
     * start of the next answer. Pipelined here: after the HEAD's header block comes the next answer's status line.
     */
    @Test
    void aProblemAnsweringAHeadHasNoBodySoTheNextAnswerOnItsConnectionIsRead() throws IOException {
        for (String path : List.of("/api/nmc/v1/openapi.json", "/api/nmc/v1/bestaat-niet", DECENTRAAL)) {
            try (Socket socket = new Socket("127.0.0.1", nmc.port())) {
                socket.setSoTimeout(10_000);
                socket.getOutputStream()
                        .write(("HEAD " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                                        + "GET /api/nmc/v1/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                        + "Connection: close\r\n\r\n")
                                .getBytes(StandardCharsets.US_ASCII));
                String answer = readAll(socket.getInputStream());
                assertThat(answer).as(path).matches("(?s)HTTP/1.1 40[45] .*");
                String afterHead = answer.substring(answer.indexOf("\r\n\r\n") + 4);
                assertThat(afterHead).as(path).startsWith("HTTP/1.1 200");
            }
        }
    }

    @Test
    void aMalformedRequestHelidonRefusesItselfIsAProblemToo() throws IOException {
        try (Socket socket = new Socket("127.0.0.1", nmc.port())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream()
                    .write(("GET /api/nmc/v1/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                    + "Content-Length: veel\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            String answer = readAll(socket.getInputStream());
            assertThat(answer)
                    .startsWith("HTTP/1.1 400")
                    .containsIgnoringCase("content-type: application/problem+json")
                    .containsIgnoringCase("api-version: 1.1.0")
                    .doesNotContain("veel");
        }
        // on the operator API, its own contract's version (a second read found the DV API's there)
        try (Socket socket = new Socket("127.0.0.1", nmc.port())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream()
                    .write(("GET /api/nmc-beheer/v1/taken HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                    + "Content-Length: veel\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            assertThat(readAll(socket.getInputStream()))
                    .startsWith("HTTP/1.1 400")
                    .containsIgnoringCase("api-version: 1.0.0");
        }
    }

    /**
     * Found by the acceptance fuzz target (the rest of a body read as the next request on its connection): a method
     * that is no HTTP token escaped Helidon's parser as an internal error, a 500 and a stack trace at WARNING per
     * request. It is the client's 400, and nothing of it is logged.
     */
    @Test
    void aRequestLineWhoseMethodIsNoTokenIsA400ProblemWithoutAStackTraceInTheLog() throws IOException {
        try (nl.overheid.moz.nmc.testing.LogWatch logs = nl.overheid.moz.nmc.testing.LogWatch.start()) {
            for (String method : List.of("{\"dvRef\":1}", "G\u0000T", "GE\u001bT", "\u007fGET", "G(T")) {
                try (Socket socket = new Socket("127.0.0.1", nmc.port())) {
                    socket.setSoTimeout(10_000);
                    socket.getOutputStream()
                            .write((method + " /api/nmc/v1/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                                    .getBytes(StandardCharsets.ISO_8859_1));
                    String answer = readAll(socket.getInputStream());
                    assertThat(answer)
                            .as(method)
                            .startsWith("HTTP/1.1 400")
                            .containsIgnoringCase("content-type: application/problem+json")
                            .containsIgnoringCase("api-version: 1.1.0")
                            .contains("\"status\":400");
                }
            }
            assertThat(logs.drain()).isEmpty();
        }
    }

    /**
     * Found by the raw-request fuzz target once it could choose the framing: a body that ends before its
     * Content-Length or its last chunk, or a chunk size that is no hex number, escaped the body read as an unexpected
     * error, a 500 and a SEVERE line per request. It is the client's 400, and nothing of it is logged.
     */
    @Test
    void aBodyCutShortOrWronglyChunkedIsA400ProblemWithoutALogLine() throws IOException {
        String head = "POST " + DECENTRAAL + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token
                + "\r\nContent-Type: application/json\r\n";
        List<String> stored = DB.query("SELECT count(*) FROM notificatie", null);
        try (nl.overheid.moz.nmc.testing.LogWatch logs = nl.overheid.moz.nmc.testing.LogWatch.start()) {
            for (String rest : List.of(
                    "Content-Length: 40\r\n\r\n{\"dvRef\":\"x\"",
                    "Transfer-Encoding: chunked\r\n\r\n40\r\n{\"dvRef\":\"x\"",
                    "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n")) {
                try (Socket socket = new Socket("127.0.0.1", nmc.port())) {
                    socket.setSoTimeout(10_000);
                    socket.getOutputStream().write((head + rest).getBytes(StandardCharsets.US_ASCII));
                    // the client sends nothing more: the server must not wait for the rest
                    socket.shutdownOutput();
                    String answer = readAll(socket.getInputStream());
                    assertThat(answer)
                            .as(rest)
                            .startsWith("HTTP/1.1 400")
                            .containsIgnoringCase("content-type: application/problem+json")
                            .containsIgnoringCase("api-version: 1.1.0")
                            .contains("\"status\":400");
                }
            }
            assertThat(logs.drain()).isEmpty();
        }
        assertThat(DB.query("SELECT count(*) FROM notificatie", null)).isEqualTo(stored);
    }

    /**
     * RFC 9112 §9.6: a server that receives {@code Connection: close} closes the connection after its answer. Helidon
     * 4.5 answers with the header but keeps the connection open (helidon-io/helidon#12324), so a client that reads to
     * the end of the connection waited for its own timeout, found against a local run. Both a document and a problem;
     * a request pipelined after it is not answered (Helidon answered it).
     */
    @Test
    void aRequestWithConnectionCloseHasItsConnectionClosedAfterTheAnswer() throws IOException {
        for (String path : List.of("/.well-known/jwks.json", "/api/nmc/v1/nergens")) {
            try (Socket socket = new Socket("127.0.0.1", nmc.port())) {
                socket.setSoTimeout(10_000); // still open: a SocketTimeoutException
                socket.getOutputStream()
                        .write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                                        + "GET /.well-known/jwks.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                                .getBytes(StandardCharsets.US_ASCII));
                String answer = readAll(socket.getInputStream());
                assertThat(answer).as(path).startsWith("HTTP/1.1 " + (path.contains("nergens") ? "404" : "200"));
                assertThat(answer.split("HTTP/1\\.1 ", -1))
                        .as("one answer: %s", answer)
                        .hasSize(2);
            }
        }
    }

    /**
     * Found against a local run: after a chunk line that is no hex number, closing the body's stream read on and took
     * the next bytes for a chunk line ({@code abc} asks for 2,748 bytes), so a client that kept its connection open
     * got no answer at all, and its call held its permits. The test above did not see it: its client sends nothing
     * more and half-closes, and the read ends there. Now the 400 comes at once and the server closes the connection.
     */
    @Test
    void aWronglyChunkedBodyIsAnsweredWhileTheClientKeepsItsConnectionOpen() throws IOException {
        String head = "POST " + DECENTRAAL + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token
                + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
        List<String> stored = DB.query("SELECT count(*) FROM notificatie", null);
        try (Socket socket = new Socket("127.0.0.1", nmc.port())) {
            socket.setSoTimeout(10_000); // a hang is a SocketTimeoutException, not an answer
            socket.getOutputStream().write((head + "zz\r\nabc\r\n0\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            byte[] buf = new byte[4096];
            try {
                for (int n; (n = socket.getInputStream().read(buf)) >= 0; ) {
                    got.write(buf, 0, n);
                }
            } catch (java.net.SocketTimeoutException e) {
                throw new AssertionError("timed out after: " + got.toString(StandardCharsets.UTF_8), e);
            }
            String answer = got.toString(StandardCharsets.UTF_8); // to the end: the server closed
            assertThat(answer)
                    .startsWith("HTTP/1.1 400")
                    .containsIgnoringCase("connection: close")
                    .contains("\"status\":400", "\"code\":\"framing\"");
        }
        assertThat(DB.query("SELECT count(*) FROM notificatie", null)).isEqualTo(stored);
    }

    /**
     * Found by the raw-request fuzz target: a transfer coding the server does not implement, before the final
     * {@code chunked}, is Helidon's 501 (RFC 9112 suggests it). The client chose it, so the NMC answers the client's
     * 400 problem: no 5xx for anything a client can choose. Nothing is stored.
     */
    @Test
    void aTransferCodingTheServerDoesNotImplementIsA400Problem() throws IOException {
        String head = "POST " + DECENTRAAL + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token
                + "\r\nContent-Type: application/json\r\n";
        List<String> stored = DB.query("SELECT count(*) FROM notificatie", null);
        for (String codings : List.of(
                "Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n",
                "Transfer-Encoding: onbekend, chunked\r\n")) {
            try (Socket socket = new Socket("127.0.0.1", nmc.port())) {
                socket.setSoTimeout(10_000);
                socket.getOutputStream()
                        .write((head + codings + "\r\n2\r\n{}\r\n0\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                socket.shutdownOutput();
                String answer = readAll(socket.getInputStream());
                assertThat(answer)
                        .as(codings)
                        .startsWith("HTTP/1.1 400")
                        .containsIgnoringCase("content-type: application/problem+json")
                        .contains("\"status\":400");
            }
        }
        assertThat(DB.query("SELECT count(*) FROM notificatie", null)).isEqualTo(stored);
    }

    private static String readAll(InputStream in) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            in.transferTo(bytes);
        } catch (java.net.SocketException reset) {
            // the server closes after its answer; what arrived before counts
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static void assertProblemHeaders(Http.Response response, String what, boolean hasBody) {
        assertThat(response.status()).as(what).isNotEqualTo(500);
        assertThat(response.contentType()).as(what).startsWith("application/problem+json");
        assertSecurityHeaders(response, what, "no-store");
        assertThat(response.header("Access-Control-Allow-Origin")).as(what).isEmpty();
        if (hasBody) {
            assertThat(response.json().path("status").asInt()).as(what).isEqualTo(response.status());
            assertThat(response.json().path("title").asText()).as(what).isNotBlank();
        }
    }

    private static void assertSecurityHeaders(Http.Response response, String what, String cacheControl) {
        // each contract's own info.version: the DV API 1.1.0, the operator API and the NotifyNL callback 1.0.0
        String version = what.contains("callback") || what.contains("nmc-beheer") ? "1.0.0" : "1.1.0";
        assertThat(response.header("API-Version")).as(what).contains(version);
        assertThat(response.header("Cache-Control")).as(what).contains(cacheControl);
        assertThat(response.header("Content-Security-Policy")).as(what).contains("frame-ancestors 'none'");
        assertThat(response.header("Strict-Transport-Security")).as(what).contains("max-age=31536000");
        assertThat(response.header("X-Content-Type-Options")).as(what).contains("nosniff");
        assertThat(response.header("X-Frame-Options")).as(what).contains("DENY");
    }
}
