package nl.overheid.moz.nmc.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.junit.DictionaryFile;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import nl.overheid.moz.nmc.testing.FuzzAnswers;
import nl.overheid.moz.nmc.testing.LogWatch;
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
 * Fuzz target: whole requests as bytes — request line, path and query, headers (the {@code traceparent}, the
 * {@code Fsc-Transaction-Id}, the token, the media type) and body — against a started NMC on the test database.
 * An input is the request as text: the request line, header lines up to an empty line, then the body; {@code @DV@},
 * {@code @BEHEER@} and {@code @NOTIFYNL@} (anywhere) become a DV's, an operator's and NotifyNL's valid tokens. CR and LF inside a
 * line are dropped. Without a {@code Content-Length} or {@code Transfer-Encoding} line the framing is set by
 * {@link RawHttp}, so the input is one complete request; with one, the input's own framing is sent as it is (a body
 * cut short, chunks that do not add up, a second request after the body) and every answer is read. Whatever the
 * bytes: an answer, never a 5xx (but HTTP's 505 to a request line of another HTTP version), a problem for every 4xx,
 * the security headers on every answer, no stack trace or class name, no row changed without a 2xx, and no log line
 * that is SEVERE, carries a stack trace or a control character. The seed corpus is {@code RawRequestFuzzTestInputs/}.
 */
class RawRequestFuzzTest {

    private static final TestDatabase DB = TestDatabase.get();
    private static final TestIam IAM = new TestIam();

    private static RunningNmc nmc;
    private static RawHttp http;
    private static RowCounts rows;
    private static LogWatch logs;
    private static Map<String, String> tokens = Map.of();
    private static Instant tokensMinted = Instant.EPOCH;

    @BeforeAll
    static void start() {
        DB.reset();
        nmc = RunningNmc.start(DB, IAM, MutableClock.startingNow(), "{}");
        http = new RawHttp(nmc.port());
        rows = new RowCounts(DB);
        logs = LogWatch.start();
    }

    @AfterAll
    static void stop() {
        logs.close();
        rows.close();
        nmc.close();
    }

    @FuzzTest(maxDuration = "20s")
    @DictionaryFile(resourcePath = "RawRequestFuzzTest.dict")
    void rawRequest(byte[] input) {
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
        List<byte[]> lines = new ArrayList<>();
        int at = 0;
        int bodyStart = input.length;
        while (at <= input.length) {
            int end = at;
            while (end < input.length && input[end] != '\n') {
                end++;
            }
            byte[] line = java.util.Arrays.copyOfRange(input, at, end);
            if (!lines.isEmpty() && (line.length == 0 || (line.length == 1 && line[0] == '\r'))) {
                bodyStart = Math.min(end + 1, input.length);
                break;
            }
            lines.add(withTokens(line));
            at = end + 1;
        }
        if (lines.isEmpty()) {
            lines.add(new byte[0]);
        }
        // in the body too: it may hold a second request after the first one's framing
        byte[] body = withTokens(java.util.Arrays.copyOfRange(input, bodyStart, input.length));
        String what = AcceptanceFuzzTest.printable(input);
        byte[] requestLine = lines.getFirst();
        List<byte[]> headers = lines.subList(1, lines.size());
        boolean ownFraming = headers.stream().anyMatch(RawRequestFuzzTest::framing);

        RowCounts.State before = rows.now();
        RawHttp.Exchange exchange = ownFraming
                ? http.sendAsFramed(requestLine, headers, body)
                : new RawHttp.Exchange(List.of(http.send(requestLine, headers, body)), true);
        RowCounts.State after = rows.now();

        List<RawHttp.Answer> answers = exchange.answers();
        assertThat(answers).as("%s: an answer", what).isNotEmpty();
        assertThat(answers.getFirst().status()).as("%s: an answer", what).isNotEqualTo(-1);
        boolean http11 = new String(requestLine, StandardCharsets.ISO_8859_1).endsWith(" HTTP/1.1");
        boolean success = false;
        for (int i = 0; i < answers.size(); i++) {
            RawHttp.Answer answer = answers.get(i);
            String which = what + (i == 0 ? "" : " (answer " + (i + 1) + ")");
            success |= answer.status() >= 200 && answer.status() <= 299;
            check(which, answer, i > 0 || !http11);
        }
        if (!success && exchange.complete()) {
            assertThat(after.changedSince(before))
                    .as(
                            "%s: nothing changed by %s",
                            what, answers.stream().map(RawHttp.Answer::status).toList())
                    .isEmpty();
        }
    }

    /**
     * One answer: a status below 500 (a 505 only where the request line may be of another HTTP version), a problem
     * for a 4xx, no stack trace or class name, the security headers.
     */
    private static void check(String what, RawHttp.Answer answer, boolean mayBeOtherVersion) {
        String contentType = answer.header("Content-Type").orElse("");
        String text = answer.text();
        boolean documents = contentType.contains("yaml") || text.startsWith("{\"openapi\"");
        if (answer.status() == 505) {
            // HTTP's own answer to another protocol version (HTTP/1.0, HTTP/9.9): the client's choice, not a fault
            assertThat(mayBeOtherVersion).as("%s: a 505 for HTTP/1.1", what).isTrue();
        } else {
            assertThat(answer.status())
                    .as("%s: the answer's status (body %s)", what, text)
                    .isBetween(100, 499);
        }
        if (answer.status() >= 200) {
            FuzzAnswers.checkBody(what, answer.status(), contentType, documents ? "" : text, true);
            assertThat(answer.header("X-Content-Type-Options")).as(what).contains("nosniff");
            assertThat(answer.header("API-Version")).as(what).isPresent();
        }
    }

    private static boolean framing(byte[] header) {
        String line = new String(header, StandardCharsets.ISO_8859_1);
        int colon = line.indexOf(':');
        return colon > 0
                && RawHttp.BODY_FRAMING.contains(line.substring(0, colon).trim().toLowerCase(java.util.Locale.ROOT));
    }

    /** The line with its token placeholders replaced by valid tokens. */
    private static byte[] withTokens(byte[] line) {
        String text = new String(line, StandardCharsets.ISO_8859_1);
        if (!text.contains("@")) {
            return line;
        }
        for (Map.Entry<String, String> token : tokens().entrySet()) {
            text = text.replace(token.getKey(), token.getValue());
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(text.getBytes(StandardCharsets.ISO_8859_1));
        return out.toByteArray();
    }

    private static synchronized Map<String, String> tokens() {
        if (Instant.now().isAfter(tokensMinted.plus(Duration.ofMinutes(20)))) {
            tokensMinted = Instant.now();
            tokens = Map.of(
                    "@DV@", IAM.token(TestNmc.DV_A),
                    "@BEHEER@", IAM.operatorToken("fuzzer", Instant.now()),
                    "@NOTIFYNL@", TestNmc.CALLBACK_TOKEN);
        }
        return tokens;
    }
}
