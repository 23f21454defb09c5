package nl.overheid.moz.nmc.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.junit.DictionaryFile;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import nl.overheid.moz.nmc.testing.FuzzAnswers;
import nl.overheid.moz.nmc.testing.LogWatch;
import nl.overheid.moz.nmc.testing.ManualRunner;
import nl.overheid.moz.nmc.testing.MutableClock;
import nl.overheid.moz.nmc.testing.RawHttp;
import nl.overheid.moz.nmc.testing.RowCounts;
import nl.overheid.moz.nmc.testing.RunningNmc;
import nl.overheid.moz.nmc.testing.TestDatabase;
import nl.overheid.moz.nmc.testing.TestIam;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Fuzz target: NotifyNL's delivery-receipt callback ({@link NotifyNlCallbackResource} and its {@link JsonBodies}),
 * against a started NMC on the test database that has sent one notification through each of its two NotifyNL
 * services. An input is a first line {@code <token> <media type>} ({@code A}, {@code B}: the two services' callback
 * tokens; {@code fout}, {@code geen}) and then the body, in which {@code @POGING@} and {@code @POGING_B@} become the
 * ids of the two real attempts. Whatever the input: an answer the contract documents with a body valid against its
 * schema, no stack trace or class name, a 401 exactly for a wrong token, nothing stored but for a 200, at most one
 * receipt (and its task) for a 200 and only for an attempt of the token's own service, the stored status exactly the
 * one sent, and no log line that is SEVERE, carries a stack trace or a control character. The seed corpus is
 * {@code NotifyNlCallbackFuzzTestInputs/}.
 */
class NotifyNlCallbackFuzzTest {

    private static final TestDatabase DB = TestDatabase.get();
    private static final TestIam IAM = new TestIam();
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final List<String> TOKENS = List.of("A", "B", "fout", "geen");
    private static final List<String> MEDIA_TYPES = List.of("json", "text/plain", "geen");

    private static RunningNmc nmc;
    private static RawHttp http;
    private static RowCounts rows;
    private static LogWatch logs;
    private static ContractAnswers contract;
    private static String poging;
    private static String pogingB;

    @BeforeAll
    static void start() {
        DB.reset();
        nmc = RunningNmc.start(DB, IAM, MutableClock.startingNow(), "{}");
        http = new RawHttp(nmc.port());
        String token = IAM.token(TestNmc.DV_A);
        for (String berichttype : List.of(TestNmc.BERICHTTYPE, TestNmc.BERICHTTYPE_B)) {
            assertThat(nmc.http()
                            .post(
                                    "/api/nmc/v1/decentraal/notificaties",
                                    token,
                                    "{\"dvRef\":\"FUZZ-" + berichttype + "\",\"berichttype\":\"" + berichttype
                                            + "\",\"emailadres\":\"ontvanger@example.nl\"}")
                            .status())
                    .isEqualTo(202);
        }
        ManualRunner.of(nmc.nmc()).runWorkersOnce();
        poging = attempt(TestNmc.BERICHTTYPE);
        pogingB = attempt(TestNmc.BERICHTTYPE_B);
        rows = new RowCounts(DB);
        logs = LogWatch.start();
        contract = ContractAnswers.callback();
    }

    private static String attempt(String berichttype) {
        return DB.query(
                        "SELECT p.id FROM poging p JOIN notificatie n ON n.id = p.notificatie WHERE n.berichttype = ?",
                        berichttype)
                .getFirst();
    }

    @AfterAll
    static void stop() {
        logs.close();
        rows.close();
        nmc.close();
    }

    @FuzzTest(maxDuration = "15s")
    @DictionaryFile(resourcePath = "NotifyNlCallbackFuzzTest.dict")
    void callback(byte[] input) {
        // the NMC under test listens on the loopback address: connections there are the point, not a finding
        BugDetectors.allowNetworkConnections((host, port) -> host.equals("127.0.0.1") || host.equals("localhost"));
        List<String> logged;
        try {
            exchange(input);
        } finally {
            // an input's log lines stay with it, also when an assertion on its answer failed first
            logged = logs.drain();
        }
        assertThat(logged).as(AcceptanceFuzzTest.printable(input)).isEmpty();
    }

    private static void exchange(byte[] input) {
        int newline = AcceptanceFuzzTest.indexOf(input, (byte) '\n');
        String[] words = new String(input, 0, Math.max(newline, 0), StandardCharsets.ISO_8859_1).split(" ", 2);
        String caller = AcceptanceFuzzTest.pick(TOKENS, words, 0);
        String mediaType = AcceptanceFuzzTest.pick(MEDIA_TYPES, words, 1);
        byte[] body = new String(
                        java.util.Arrays.copyOfRange(input, newline + 1, input.length), StandardCharsets.ISO_8859_1)
                .replace("@POGING_B@", pogingB)
                .replace("@POGING@", poging)
                .getBytes(StandardCharsets.ISO_8859_1);
        String what = caller + " " + mediaType + " " + AcceptanceFuzzTest.printable(body);

        List<byte[]> headers = new ArrayList<>();
        switch (caller) {
            case "A" -> headers.add(ascii("Authorization: Bearer " + TestNmc.CALLBACK_TOKEN));
            case "B" -> headers.add(ascii("Authorization: Bearer " + TestNmc.CALLBACK_TOKEN_B));
            case "fout" -> headers.add(ascii("Authorization: Bearer " + TestNmc.CALLBACK_TOKEN + "x"));
            default -> {}
        }
        if (!mediaType.equals("geen")) {
            headers.add(ascii("Content-Type: " + (mediaType.equals("json") ? "application/json" : mediaType)));
        }
        RowCounts.State before = rows.now();
        RawHttp.Answer answer = http.send(ascii("POST /api/nmc/v1/notifynl-callback HTTP/1.1"), headers, body);
        RowCounts.State after = rows.now();
        String contentType = answer.header("Content-Type").orElse("");
        JsonNode json = FuzzAnswers.check(what, answer.status(), contentType, answer.text(), false);
        contract.check(what, "POST", "/notifynl-callback", answer.status(), contentType, json);
        assertThat(answer.status() == 401).as(what).isEqualTo(caller.equals("fout") || caller.equals("geen"));

        long stored = after.added(before, "ontvangst");
        assertThat(after.changedSince(before))
                .as("%s: the tables changed (answer %d)", what, answer.status())
                .isSubsetOf(answer.status() == 200 ? List.of("ontvangst", "taak") : List.of());
        assertThat(stored).as(what).isBetween(0L, 1L);
        assertThat(after.added(before, "taak")).as(what).isBetween(0L, 1L);
        if (stored == 1) {
            JsonNode sent = read(body);
            String reference = sent.path("reference").asText();
            assertThat(reference)
                    .as("%s: a receipt stored only for an attempt of the token's own service", what)
                    .isEqualToIgnoringCase(caller.equals("A") ? poging : pogingB);
            String status = DB.query("SELECT status FROM ontvangst ORDER BY id DESC LIMIT 1", null)
                    .getFirst();
            assertThat(status)
                    .as("%s: the status stored as sent", what)
                    .isEqualTo(sent.path("status").asText());
        }
    }

    private static JsonNode read(byte[] body) {
        try {
            return MAPPER.readTree(body);
        } catch (IOException e) {
            throw new AssertionError("a stored receipt of a body that is no JSON", e);
        }
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }
}
