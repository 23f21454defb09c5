package nl.overheid.moz.nmc.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import nl.overheid.moz.nmc.testing.Http;
import nl.overheid.moz.nmc.testing.MutableClock;
import nl.overheid.moz.nmc.testing.PrometheusText;
import nl.overheid.moz.nmc.testing.RunningNmc;
import nl.overheid.moz.nmc.testing.TestDatabase;
import nl.overheid.moz.nmc.testing.TestIam;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One DV cannot exhaust the service (ARCHITECTURE §4, "Limits"). A call is held open by sending its headers and only
 * part of its body: the NMC admitted it and waits for the rest, which is what a slow or hostile client does. Over a
 * limit the answer is a 429 problem with {@code Retry-After}, before any body is read (at once here: the tests'
 * {@code http.refusal-delay} is zero but in the one test that holds refusals as production does); another DV, or
 * another kind of call, goes on; a held call that ends gives its slot back.
 */
class RequestLimitsTest {

    private static final TestDatabase DB = TestDatabase.get();
    private static final TestIam IAM = new TestIam();
    private static final String SINGLE = "/api/nmc/v1/decentraal/notificaties";
    private static final String BULK = "/api/nmc/v1/decentraal/notificaties/bulk";

    private final MutableClock clock = MutableClock.startingNow();
    private RunningNmc nmc;

    @AfterEach
    void stop() {
        if (nmc != null) {
            nmc.close();
        }
    }

    private Http start(String overrides) {
        DB.reset();
        nmc = RunningNmc.start(DB, IAM, clock, overrides);
        return nmc.http();
    }

    private String token(String oin) {
        return IAM.token(oin, clock.instant());
    }

    private static String single(String dvRef) {
        return Http.json(Map.of("dvRef", dvRef, "berichttype", TestNmc.BERICHTTYPE, "emailadres", "a@example.nl"));
    }

    /**
     * A call whose headers and first body bytes are sent, the rest never: the NMC holds it until it is closed. It
     * returns once the call is admitted (the gauge of calls in progress has counted it), so that no call sent after
     * it can take its slot first.
     */
    private Socket held(String path, String token) throws Exception {
        return held(path, token, 100_000);
    }

    private Socket held(String path, String token, int contentLength) throws Exception {
        double before = inProgress();
        Socket socket = send(path, token, contentLength);
        eventually(() -> assertThat(inProgress()).isEqualTo(before + 1));
        return socket;
    }

    /**
     * A held call closed by the client gives its slot back a moment later; a held call counted against the gauge
     * before that moment waited for one too many (a full run saw it: expected 2, was 1).
     */
    private void awaitNoneInProgress() throws InterruptedException {
        eventually(() -> assertThat(inProgress()).isZero());
    }

    private double inProgress() {
        Http.Response metrics = nmc.http().request("GET", "/observe/metrics", null, null, null);
        return PrometheusText.parse(metrics.body()).value("nmc_api_calls_in_progress", Map.of("soort", "alle"));
    }

    /** The start of a call of 100,000 bytes: its headers and first body bytes. */
    private Socket send(String path, String token) throws IOException {
        return send(path, token, 100_000);
    }

    private Socket send(String path, String token, int contentLength) throws IOException {
        Socket socket = new Socket("127.0.0.1", nmc.port());
        OutputStream out = socket.getOutputStream();
        out.write(("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token
                        + "\r\nContent-Type: application/json\r\nContent-Length: " + contentLength
                        + "\r\n\r\n{\"notificaties\": [")
                .getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return socket;
    }

    private static void assertRefusedAtOnce(Http.Response response, String detail) {
        assertThat(response.status()).as(response.body()).isEqualTo(429);
        assertThat(response.contentType()).isEqualTo("application/problem+json");
        assertThat(response.header("Retry-After")).contains("1");
        assertThat(response.json().path("detail").asText()).contains(detail);
    }

    /** A held call reaches the NMC's filter, and a closed one gives its slot back, a moment after. */
    private static void eventually(Runnable assertion) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (true) {
            try {
                assertion.run();
                return;
            } catch (AssertionError e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(50);
            }
        }
    }

    private double pauses() {
        Http.Response metrics = nmc.http().request("GET", "/observe/metrics", null, null, null);
        return PrometheusText.parse(metrics.body()).value("nmc_api_bulk_pauses_seconds_count", Map.of());
    }

    private static String bulk(String prefix, int items) {
        return java.util.stream.IntStream.range(0, items)
                .mapToObj(i -> single(prefix + "-" + i))
                .collect(java.util.stream.Collectors.joining(",", "{\"notificaties\": [", "]}"));
    }

    /**
     * A bulk call is paced while another DV's call other than a bulk call is in progress on the instance
     * ({@code http.bulk-share}): after every ten items checked, validated, prepared or sealed and each chunk committed it waits, so that the
     * other DV's calls get the cores. Alone on the instance, beside calls of its own DV only or beside another DV's
     * bulk call, it is never paced.
     */
    @Test
    void aBulkCallIsPacedWhileAnotherDvsSingleCallIsInProgressAndNeverOtherwise() throws Exception {
        Http http = start("");
        double before = pauses();
        assertThat(http.post(BULK, token(TestNmc.DV_A), bulk("alone", 250)).status())
                .isEqualTo(200);
        // a single call of 1,000 bytes (a single body may be no larger than 64 KB) whose body never comes
        try (Socket own = held(SINGLE, token(TestNmc.DV_A), 1_000)) {
            assertThat(http.post(BULK, token(TestNmc.DV_A), bulk("own", 250)).status())
                    .isEqualTo(200);
        }
        awaitNoneInProgress();
        try (Socket otherBulk = held(BULK, token(TestNmc.DV_B))) {
            assertThat(http.post(BULK, token(TestNmc.DV_A), bulk("bulk", 250)).status())
                    .isEqualTo(200);
        }
        assertThat(pauses())
                .as("alone, beside its own DV's call or another DV's bulk call: never paced")
                .isEqualTo(before);

        awaitNoneInProgress();
        try (Socket other = held(SINGLE, token(TestNmc.DV_B), 1_000)) {
            assertThat(http.post(BULK, token(TestNmc.DV_A), bulk("beside", 250)).status())
                    .isEqualTo(200);
        }
        // a step every ten items of the body's check (25), validated (25), prepared (25) and sealed (25), and after
        // each of the three chunks (100, 100, 50): a waiting call meets the bulk call at its share within ten items'
        // work
        assertThat(pauses()).as("beside another DV's call").isEqualTo(before + 103);
        assertThat(stored()).isEqualTo(1000);
    }

    private long stored() {
        return Long.parseLong(DB.query("SELECT count(*) FROM notificatie", null).getFirst());
    }

    @Test
    void aDvOverItsConcurrentCallsIsRefusedWhileOthersGoOnAndItsSlotComesBack() throws Exception {
        Http http = start("http: {max-concurrent-requests-per-dv: 1, max-concurrent-bulk-requests-per-dv: 1}");
        // admitted before its body is read: held, the DV's one slot is taken
        Socket first = held(BULK, token(TestNmc.DV_A));
        assertRefusedAtOnce(http.post(SINGLE, token(TestNmc.DV_A), single("A-1")), "te veel verzoeken tegelijk");
        assertThat(http.post(SINGLE, token(TestNmc.DV_B), single("B-1")).status())
                .isEqualTo(202);
        assertThat(stored()).isEqualTo(1);

        first.close(); // the client gives up mid-body: its slot comes back
        eventually(() -> assertThat(
                        http.post(SINGLE, token(TestNmc.DV_A), single("A-1")).status())
                .isEqualTo(202));
    }

    /** One bulk call of a DV at a time by default: a maximal one keeps a core busy for its whole length. */
    @Test
    void bulkCallsHaveTheirOwnLowerCapAndSingleCallsStillGoThrough() throws Exception {
        Http http = start("");
        try (Socket first = held(BULK, token(TestNmc.DV_A))) {
            assertRefusedAtOnce(
                    http.post(BULK, token(TestNmc.DV_A), "{\"notificaties\": [" + single("A-2") + "]}"),
                    "te veel verzoeken tegelijk");
            assertThat(http.post(SINGLE, token(TestNmc.DV_A), single("A-3")).status())
                    .isEqualTo(202);
            assertThat(http.post(BULK, token(TestNmc.DV_B), "{\"notificaties\": [" + single("B-2") + "]}")
                            .status())
                    .isEqualTo(200);
        }
    }

    /**
     * A refusal is answered after {@code http.refusal-delay}, as production does, so a client that sends again the
     * moment it is refused sends one call per delay instead of as many as the NMC can refuse. While held it has its
     * slot given back (only the held bulk call counts), another DV goes on, and no more than
     * {@code http.max-delayed-refusals} wait: the next refusal is answered at once.
     */
    @Test
    void aRefusalIsHeldForTheDelayWithoutItsSlotAndOnlySoManyAreHeld() throws Exception {
        Http http = start("http: {max-concurrent-requests-per-dv: 1, max-concurrent-bulk-requests-per-dv: 1,"
                + " refusal-delay: PT1S, max-delayed-refusals: 1}");
        try (Socket first = held(BULK, token(TestNmc.DV_A))) {
            long sent = System.nanoTime();
            java.util.concurrent.CompletableFuture<Http.Response> heldRefusal =
                    java.util.concurrent.CompletableFuture.supplyAsync(
                            () -> http.post(SINGLE, token(TestNmc.DV_A), single("A-held")));
            // the held refusal gave its slot back: only the held bulk call is in progress
            Thread.sleep(200);
            assertThat(inProgress()).isEqualTo(1.0);
            assertThat(http.post(SINGLE, token(TestNmc.DV_B), single("B-held")).status())
                    .isEqualTo(202);
            // one refusal is held already: the next is answered at once, before the held one
            assertRefusedAtOnce(http.post(SINGLE, token(TestNmc.DV_A), single("A-next")), "te veel verzoeken tegelijk");
            assertThat(heldRefusal).isNotDone();

            Http.Response refused = heldRefusal.get();
            assertThat(Duration.ofNanos(System.nanoTime() - sent)).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
            assertRefusedAtOnce(refused, "te veel verzoeken tegelijk");
        }
        assertThat(stored()).isEqualTo(1);
    }

    @Test
    void theInstanceCapHoldsOverAllDvs() throws Exception {
        Http http = start("http: {max-concurrent-requests: 2, max-concurrent-requests-per-dv: 1,"
                + " max-concurrent-bulk-requests: 2, max-concurrent-bulk-requests-per-dv: 1}");
        try (Socket a = held(BULK, token(TestNmc.DV_A));
                Socket b = held(BULK, token(TestNmc.DV_B))) {
            assertRefusedAtOnce(
                    http.post(SINGLE, token(TestNmc.DV_SMALL_QUOTA), single("C-1")),
                    "Het NMC verwerkt nu te veel verzoeken tegelijk");
        }
        assertThat(stored()).isZero();
    }

    @Test
    void statusSearchAndCancelAreRateLimitedPerDvAndCountNoFeedCall() {
        Http http = start("http: {rate-limit-per-second: 3}\nfeed: {rate-limit-per-second: 1}");
        UUID id = UUID.fromString(http.post(SINGLE, token(TestNmc.DV_A), single("R-1"))
                .json()
                .path("id")
                .asText());
        // the clock stands still: every call falls in one second
        assertThat(http.get("/api/nmc/v1/notificaties/" + id, token(TestNmc.DV_A))
                        .status())
                .isEqualTo(200);
        assertThat(http.get("/api/nmc/v1/notificaties?dvRef=R-1", token(TestNmc.DV_A))
                        .status())
                .isEqualTo(200);
        assertThat(http.get("/api/nmc/v1/notificaties/" + UUID.randomUUID(), token(TestNmc.DV_A))
                        .status())
                .isEqualTo(404);
        Http.Response over = http.delete("/api/nmc/v1/notificaties/" + id, token(TestNmc.DV_A));
        assertThat(over.status()).isEqualTo(429);
        assertThat(over.json().path("type").asText()).endsWith("/aanroeplimiet-overschreden");
        assertThat(over.header("Retry-After")).contains("1");
        assertThat(DB.query("SELECT status FROM notificatie", null)).containsExactly("aangenomen");
        // counted apart: the feed has its own second, and another DV its own
        assertThat(http.get("/api/nmc/v1/notificaties/wijzigingen", token(TestNmc.DV_A))
                        .status())
                .isEqualTo(200);
        assertThat(http.get("/api/nmc/v1/notificaties/" + id, token(TestNmc.DV_B))
                        .status())
                .isEqualTo(404);

        clock.advance(Duration.ofSeconds(1));
        assertThat(http.delete("/api/nmc/v1/notificaties/" + id, token(TestNmc.DV_A))
                        .status())
                .isEqualTo(200);
    }

    /**
     * A repeat takes no quota, so a DV could send the same bulk call again and again and have each read, validated
     * and looked up; its bulk calls have a rate of their own, over all instances, refused before the body is read.
     */
    @Test
    void bulkCallsAreRateLimitedPerDvOverAllInstancesAlsoWhenEveryItemIsARepeat() {
        String limit = "http: {bulk-rate-limit-per-second: 2}";
        Http http = start(limit);
        String bulk = "{\"notificaties\": [" + single("B-1") + "]}";
        // the clock stands still: every call falls in one second
        assertThat(http.post(BULK, token(TestNmc.DV_A), bulk).status()).isEqualTo(200);
        assertThat(http.post(BULK, token(TestNmc.DV_A), bulk).status())
                .as("a repeat")
                .isEqualTo(200);
        assertThat(stored()).isEqualTo(1);
        try (RunningNmc other = RunningNmc.start(DB, IAM, clock, limit)) {
            for (Http instance : List.of(http, other.http())) {
                Http.Response over = instance.post(BULK, token(TestNmc.DV_A), "{\"notificaties\": [");
                // not a 400 for the broken body: it was never read
                assertThat(over.status()).as(over.body()).isEqualTo(429);
                assertThat(over.json().path("type").asText()).endsWith("/aanroeplimiet-overschreden");
                assertThat(over.header("Retry-After")).contains("1");
            }
            // counted apart: the DV's single acceptance, and another DV's bulk calls
            assertThat(other.http()
                            .post(SINGLE, token(TestNmc.DV_A), single("B-2"))
                            .status())
                    .isEqualTo(202);
            assertThat(other.http().post(BULK, token(TestNmc.DV_B), bulk).status())
                    .isEqualTo(200);
        }
        clock.advance(Duration.ofSeconds(1));
        assertThat(http.post(BULK, token(TestNmc.DV_A), bulk).status()).isEqualTo(200);
        assertThat(stored()).isEqualTo(3);
    }

    /**
     * A single acceptance that stores nothing (a repeat, a body refused) counts against no quota either; such calls
     * are counted after their answer, over all instances, and an instance that has counted a DV over the limit
     * refuses the DV's single acceptances before their bodies are read for the rest of the second. A call that stores
     * a new notification is not counted.
     */
    @Test
    void singleAcceptancesThatStoreNothingAreRateLimitedPerDvOverAllInstances() throws InterruptedException {
        String limit = "http: {repeat-rate-limit-per-second: 2}";
        Http http = start(limit);
        // the clock stands still: every call falls in one second
        for (int i = 0; i < 5; i++) {
            assertThat(http.post(SINGLE, token(TestNmc.DV_A), single("N-" + i)).status())
                    .as("new notifications are not counted")
                    .isEqualTo(202);
        }
        assertThat(http.post(SINGLE, token(TestNmc.DV_A), single("N-0")).status())
                .as("a repeat")
                .isEqualTo(202);
        assertThat(http.post(SINGLE, token(TestNmc.DV_A), "{\"dvRef\": 1}").status())
                .as("a body refused")
                .isEqualTo(400);
        // counted once the answer is out (ApiFilter, after the call): a moment after the client has it
        eventually(() -> assertThat(repeatsCounted()).containsExactly("2"));
        try (RunningNmc other = RunningNmc.start(DB, IAM, clock, limit)) {
            // the third in vain is answered, on the other instance, and counted over the limit there
            assertThat(other.http()
                            .post(SINGLE, token(TestNmc.DV_A), single("N-1"))
                            .status())
                    .isEqualTo(202);
            for (String body : List.of(single("N-new"), "{\"dvRef\": 1}")) {
                Http.Response over = other.http().post(SINGLE, token(TestNmc.DV_A), body);
                // a new one as well, and not a 400 for the broken body: it was never read
                assertThat(over.status()).as(over.body()).isEqualTo(429);
                assertThat(over.json().path("type").asText()).endsWith("/aanroeplimiet-overschreden");
                assertThat(over.header("Retry-After")).contains("1");
            }
            // counted apart: the DV's status and bulk calls, and another DV's acceptances and repeats
            assertThat(other.http()
                            .get("/api/nmc/v1/notificaties?dvRef=N-0", token(TestNmc.DV_A))
                            .status())
                    .isEqualTo(200);
            assertThat(other.http()
                            .post(BULK, token(TestNmc.DV_A), "{\"notificaties\": [" + single("N-bulk") + "]}")
                            .status())
                    .isEqualTo(200);
            for (int i = 0; i < 3; i++) {
                assertThat(other.http()
                                .post(SINGLE, token(TestNmc.DV_B), single("B-1"))
                                .status())
                        .isEqualTo(202);
            }
            // the first instance sees the count at its next call in vain, and refuses from then on
            assertThat(http.post(SINGLE, token(TestNmc.DV_A), single("N-2")).status())
                    .isEqualTo(202);
            assertThat(http.post(SINGLE, token(TestNmc.DV_A), single("N-new")).status())
                    .isEqualTo(429);
        }
        assertThat(stored()).isEqualTo(7);
        clock.advance(Duration.ofSeconds(1));
        assertThat(http.post(SINGLE, token(TestNmc.DV_A), single("N-new")).status())
                .isEqualTo(202);
        assertThat(http.post(SINGLE, token(TestNmc.DV_A), single("N-new")).status())
                .isEqualTo(202);
        assertThat(stored()).isEqualTo(8);
    }

    private List<String> repeatsCounted() {
        return DB.query("SELECT aantal::text FROM dvaanroep WHERE soort = 'herhaling'", null);
    }

    @Test
    void aBulkOverAUsedUpQuotaIsRefusedWholeBeforeItsBodyIsRead() {
        Http http = start("{}");
        String token = token(TestNmc.DV_SMALL_QUOTA); // two a minute
        assertThat(http.post(SINGLE, token, single("Q-1")).status()).isEqualTo(202);
        assertThat(http.post(SINGLE, token, single("Q-2")).status()).isEqualTo(202);

        for (String body : List.of("{\"notificaties\": [" + single("Q-3") + "]}", "{\"notificaties\": [")) {
            Http.Response refused = http.post(BULK, token, body);
            // not a 400 for the broken body: it was never read
            assertThat(refused.status()).as(refused.body()).isEqualTo(429);
            assertThat(refused.json().path("type").asText()).endsWith("/quotum-overschreden");
            assertThat(refused.header("Retry-After"))
                    .hasValueSatisfying(
                            value -> assertThat(Integer.parseInt(value)).isBetween(1, 61));
        }
        assertThat(stored()).isEqualTo(2);
        // another DV's bulk is read as ever
        assertThat(http.post(BULK, token(TestNmc.DV_A), "{\"notificaties\": [").status())
                .isEqualTo(400);
    }

    /**
     * The quota's refusal is held for {@code http.refusal-delay} too, single or bulk: a DV over its quota that sends
     * again at once would otherwise have every call read, validated and refused as fast as the NMC can. Held, it has
     * given its slots back (a few DVs over their quota must not fill the instance's), and another DV is answered at
     * once.
     */
    @Test
    void theQuotasRefusalIsHeldAsTheLimitsAreAndAnotherDvGoesOn() throws Exception {
        Http http = start("http: {refusal-delay: PT1S}");
        String token = token(TestNmc.DV_SMALL_QUOTA); // two a minute
        assertThat(http.post(SINGLE, token, single("H-1")).status()).isEqualTo(202);
        assertThat(http.post(SINGLE, token, single("H-2")).status()).isEqualTo(202);
        for (var call : Map.of(SINGLE, single("H-3"), BULK, "{\"notificaties\": [" + single("H-4") + "]}")
                .entrySet()) {
            long sent = System.nanoTime();
            java.util.concurrent.CompletableFuture<Http.Response> refused =
                    java.util.concurrent.CompletableFuture.supplyAsync(
                            () -> http.post(call.getKey(), token, call.getValue()));
            Thread.sleep(200);
            assertThat(inProgress()).as("no slot held while the refusal waits").isZero();
            assertThat(http.post(
                                    SINGLE,
                                    token(TestNmc.DV_A),
                                    single("H-A-" + call.getKey().length()))
                            .status())
                    .isEqualTo(202);
            assertThat(refused).as("held while another DV is answered").isNotDone();
            assertThat(refused.get().status()).isEqualTo(429);
            assertThat(refused.get().json().path("type").asText()).endsWith("/quotum-overschreden");
            assertThat(Duration.ofNanos(System.nanoTime() - sent)).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
        }
        assertThat(stored()).isEqualTo(4);
    }

    /**
     * A call refused before its body is read leaves a large body unread and its connection closed: reading it to the
     * end to keep the connection would cost the instance every byte of a flood of refused bulk calls. A small body is
     * still drained and the connection kept.
     */
    @Test
    void aCallRefusedBeforeItsLargeBodyIsReadHasItsConnectionClosed() throws Exception {
        start("http: {max-concurrent-requests-per-dv: 1, max-concurrent-bulk-requests-per-dv: 1}");
        try (Socket first = held(BULK, token(TestNmc.DV_A))) {
            for (var call : Map.of(token(TestNmc.DV_A), "HTTP/1.1 429", "not-a-token", "HTTP/1.1 401")
                    .entrySet()) {
                // 100,000 bytes announced, 18 sent: the answer and the close come without the rest
                try (Socket socket = send(BULK, call.getKey())) {
                    socket.setSoTimeout(5_000);
                    String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                    assertThat(answer)
                            .startsWith(call.getValue())
                            .containsIgnoringCase("connection: close")
                            .contains("application/problem+json");
                }
            }
            try (Socket socket = new Socket("127.0.0.1", nmc.port())) {
                socket.setSoTimeout(5_000);
                String body = "{\"notificaties\": [" + single("A-1") + "]}";
                String request = "POST " + BULK + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                        + token(TestNmc.DV_A) + "\r\nContent-Type: application/json\r\nContent-Length: "
                        + body.length() + "\r\n\r\n" + body;
                socket.getOutputStream().write((request + request).getBytes(StandardCharsets.UTF_8));
                socket.shutdownOutput();
                String answers = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                // both answered on the one connection
                assertThat(answers.split("HTTP/1.1 429", -1)).hasSize(3);
                assertThat(answers).doesNotContainIgnoringCase("connection: close");
            }
        }
        assertThat(stored()).isZero();
    }

    /**
     * The open routes, which no token or rate limit guards, leave a large unread body unread too: NotifyNL's callback
     * with a wrong token (refused in its handler) and a GET of a document sent with a body. Helidon would read up to
     * server.max-payload-size of each to keep the connection.
     */
    @Test
    void anOpenRouteAnsweringBeforeItReadsALargeBodyClosesTheConnection() throws Exception {
        start("");
        for (var call : Map.of(
                        "POST /api/nmc/v1/notifynl-callback", "HTTP/1.1 401",
                        "GET /api/nmc/v1/openapi.json", "HTTP/1.1 200")
                .entrySet()) {
            try (Socket socket = new Socket("127.0.0.1", nmc.port())) {
                socket.setSoTimeout(5_000);
                // 4,000,000 bytes announced, 1 sent: the answer and the close come without the rest
                socket.getOutputStream()
                        .write((call.getKey() + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer onjuist\r\n"
                                        + "Content-Type: application/json\r\nContent-Length: 4000000\r\n\r\n{")
                                .getBytes(StandardCharsets.US_ASCII));
                String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(answer).as(call.getKey()).startsWith(call.getValue());
            }
        }
    }

    /**
     * What the README promises a DV: with {@code Expect: 100-continue} a bulk call over a limit is refused before its
     * body is sent. The body's publisher counts what the client took from it.
     */
    @Test
    void aCallSentWithExpectContinueIsRefusedBeforeItSendsItsBody() throws Exception {
        Http http = start("http: {max-concurrent-requests-per-dv: 1, max-concurrent-bulk-requests-per-dv: 1}");
        java.util.concurrent.atomic.AtomicLong sent = new java.util.concurrent.atomic.AtomicLong();
        byte[] body = ("{\"notificaties\": [" + single("E-1") + "]}" + " ".repeat(1_000_000))
                .getBytes(StandardCharsets.UTF_8);
        try (Socket first = held(BULK, token(TestNmc.DV_A));
                java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient()) {
            java.net.http.HttpResponse<String> refused = client.send(
                    java.net.http.HttpRequest.newBuilder(java.net.URI.create(http.baseUrl() + BULK))
                            .expectContinue(true)
                            .timeout(Duration.ofSeconds(10))
                            .header("Authorization", "Bearer " + token(TestNmc.DV_A))
                            .header("Content-Type", "application/json")
                            .POST(java.net.http.HttpRequest.BodyPublishers.fromPublisher(
                                    subscriber -> java.net.http.HttpRequest.BodyPublishers.ofByteArray(body)
                                            .subscribe(new java.util.concurrent.Flow.Subscriber<>() {
                                                @Override
                                                public void onSubscribe(java.util.concurrent.Flow.Subscription s) {
                                                    subscriber.onSubscribe(s);
                                                }

                                                @Override
                                                public void onNext(java.nio.ByteBuffer item) {
                                                    sent.addAndGet(item.remaining());
                                                    subscriber.onNext(item);
                                                }

                                                @Override
                                                public void onError(Throwable error) {
                                                    subscriber.onError(error);
                                                }

                                                @Override
                                                public void onComplete() {
                                                    subscriber.onComplete();
                                                }
                                            }),
                                    body.length))
                            .build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.body()).contains("te veel verzoeken tegelijk");
        }
        assertThat(sent.get()).as("body bytes the client sent").isZero();
        assertThat(stored()).isZero();
    }
}
