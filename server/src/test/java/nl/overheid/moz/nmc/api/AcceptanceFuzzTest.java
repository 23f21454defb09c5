package nl.overheid.moz.nmc.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.junit.DictionaryFile;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
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
 * Fuzz target: the acceptance bodies, single and bulk, in both regimes, against a started NMC on the test
 * database. An input is a first line {@code <endpoint> <caller> <media type>} (see {@link #ENDPOINTS},
 * {@link #CALLERS}, {@link #MEDIA_TYPES}; an unknown word picks one by its first letter) and then the body, sent
 * byte for byte. Whatever the input: never a 5xx, no stack trace or class name, every answer one the contract
 * documents for the operation with a body valid against its schema, no text value of the request echoed in a
 * problem, and the rows change exactly as the answers say — nothing for a refusal, one notification (with its event
 * and its task) for each new id a 202 names. What the NMC accepted it answers back unchanged, and nothing it logs
 * meanwhile is SEVERE or carries a control character. The seed corpus is {@code AcceptanceFuzzTestInputs/}.
 */
class AcceptanceFuzzTest {

    private static final TestDatabase DB = TestDatabase.get();
    private static final TestIam IAM = new TestIam();
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final List<String> ENDPOINTS = List.of("decentraal", "centraal", "decentraal-bulk", "centraal-bulk");
    private static final List<String> CALLERS = List.of("A", "B", "KLEIN", "geen", "fout");
    private static final List<String> MEDIA_TYPES = List.of(
            "json", "application/json; charset=UTF-8", "application/json; charset=ISO-8859-1", "text/plain", "geen");

    private static RunningNmc nmc;
    private static RowCounts rows;
    private static LogWatch logs;
    private static ContractAnswers contract;
    private static String contractText;
    /** Every string literal of the main code: the texts the NMC writes itself. */
    private static String nmcTexts;

    private static RawHttp http;
    private static final Set<String> IDS = new HashSet<>();
    private static final Map<String, String> TOKENS = new java.util.HashMap<>();
    private static Instant tokensMinted = Instant.EPOCH;

    @BeforeAll
    static void start() {
        DB.reset();
        nmc = RunningNmc.start(DB, IAM, MutableClock.startingNow(), "{}");
        // The quota would soon answer every request 429; the small-quota DV keeps that path in reach.
        DB.execute(
                "UPDATE dienstverlener SET quotum_per_minuut = 2000000000 WHERE oin <> '" + TestNmc.DV_SMALL_QUOTA
                        + "'",
                null);
        http = new RawHttp(nmc.port());
        rows = new RowCounts(DB);
        logs = LogWatch.start();
        contract = ContractAnswers.dv();
        contractText = ApiDocuments.load().dvYaml();
        nmcTexts = literals(Path.of("src/main/java"));
    }

    @AfterAll
    static void stop() {
        logs.close();
        rows.close();
        nmc.close();
    }

    @FuzzTest(maxDuration = "30s")
    @DictionaryFile(resourcePath = "AcceptanceFuzzTest.dict")
    void acceptance(byte[] input) {
        // the NMC under test listens on the loopback address: connections there are the point, not a finding
        BugDetectors.allowNetworkConnections((host, port) -> host.equals("127.0.0.1") || host.equals("localhost"));
        List<String> logged;
        try {
            exchange(input);
        } finally {
            // an input's log lines stay with it, also when an assertion on its answer failed first
            logged = logs.drain();
        }
        assertThat(logged).as(printable(input)).isEmpty();
    }

    private static void exchange(byte[] input) {
        int newline = indexOf(input, (byte) '\n');
        String[] words = new String(input, 0, Math.max(newline, 0), StandardCharsets.ISO_8859_1).split(" ", 3);
        byte[] body = java.util.Arrays.copyOfRange(input, newline + 1, input.length);
        String endpoint = pick(ENDPOINTS, words, 0);
        String caller = pick(CALLERS, words, 1);
        String mediaType = pick(MEDIA_TYPES, words, 2);
        boolean bulk = endpoint.endsWith("-bulk");
        String template = "/" + endpoint.replace("-bulk", "") + "/notificaties" + (bulk ? "/bulk" : "");
        String what = endpoint + " " + caller + " " + mediaType + " " + printable(body);

        RowCounts.State before = rows.now();
        RawHttp.Answer response = post(template, token(caller), mediaType, body);
        RowCounts.State after = rows.now();
        String contentType = response.header("Content-Type").orElse("");
        JsonNode answer = FuzzAnswers.check(what, response.status(), contentType, response.text(), false);
        contract.check(what, "POST", template, response.status(), contentType, answer);
        assertThat(response.header("API-Version")).as(what).isPresent();
        notEchoed(what, body, answer);

        List<String> accepted = new ArrayList<>();
        if (response.status() == 202) {
            accepted.add(answer.path("id").asText());
        } else if (response.status() == 200) {
            assertThat(bulk).as(what).isTrue();
            answer.path("resultaten").forEach(result -> {
                if (result.path("status").asInt() == 202) {
                    accepted.add(result.path("notificatie").path("id").asText());
                } else {
                    assertThat(result.path("probleem").path("status").asInt())
                            .as(what)
                            .isEqualTo(result.path("status").asInt());
                }
            });
        }
        long created = accepted.stream().distinct().filter(IDS::add).count();
        for (String table : List.of("notificatie", "event", "taak")) {
            assertThat(after.added(before, table))
                    .as("%s: rows of %s for %d new notifications (answer %d)", what, table, created, response.status())
                    .isEqualTo(created);
        }
        assertThat(after.changedSince(before))
                .as("%s: the tables changed for %d new notifications (answer %d)", what, created, response.status())
                .isSubsetOf(created == 0 ? List.of() : List.of("notificatie", "event", "taak"));
        if (response.status() == 202 && created == 1) {
            answeredAsSent(what, answer.path("id").asText(), caller, body);
        }
    }

    /** The notification as the NMC answers it: its batchId and berichttype as they were sent. */
    private static void answeredAsSent(String what, String id, String caller, byte[] body) {
        JsonNode sent;
        try {
            sent = MAPPER.readTree(body);
        } catch (IOException e) {
            throw new AssertionError(what + ": a 202 for a body that is no JSON", e);
        }
        RawHttp.Answer status = http.send(
                ascii("GET /api/nmc/v1/notificaties/" + id + " HTTP/1.1"),
                List.of(ascii("Authorization: Bearer " + token(caller))),
                new byte[0]);
        assertThat(status.status()).as(what).isEqualTo(200);
        JsonNode notificatie = read(status.text());
        assertThat(notificatie.path("berichttype").asText())
                .as(what)
                .isEqualTo(sent.path("berichttype").asText());
        assertThat(notificatie.path("batchId"))
                .as(what)
                .isEqualTo(sent.path("batchId").isMissingNode() ? notificatie.path("batchId") : sent.path("batchId"));
    }

    /**
     * No text value of the request (of 8 characters or more) in the answer. A value that is part of a text the
     * contract or the NMC's code holds ("verplicht.") or of a JSON pointer to one of the request's own fields (a
     * problem names fields as pointers, "/items/0/dvRef") cannot be told from an echo, and is passed over.
     */
    private static void notEchoed(String what, byte[] body, JsonNode answer) {
        if (answer == null) {
            return;
        }
        JsonNode sent;
        try {
            sent = MAPPER.readTree(body);
        } catch (IOException | RuntimeException e) {
            return;
        }
        if (sent == null) {
            return;
        }
        Set<String> answered = new HashSet<>();
        texts(answer, answered);
        Set<String> values = new HashSet<>();
        texts(sent, values);
        Set<String> pointers = new HashSet<>();
        pointers(sent, "", pointers);
        for (String value : values) {
            String text = value.strip();
            if (text.length() >= 8
                    && !contractText.contains(text)
                    && !nmcTexts.contains(text)
                    && pointers.stream().noneMatch(pointer -> pointer.contains(text))) {
                for (String answeredText : answered) {
                    assertThat(answeredText)
                            .as("%s: the answer echoes a value", what)
                            .doesNotContain(text);
                }
            }
        }
    }

    private static String literals(Path sources) {
        Pattern literal = Pattern.compile("\"((?:[^\"\\\\\n]|\\\\.)*)\"");
        StringBuilder texts = new StringBuilder();
        try (Stream<Path> files = Files.walk(sources)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                Matcher matcher = literal.matcher(Files.readString(file));
                while (matcher.find()) {
                    texts.append(matcher.group(1)).append('\n');
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return texts.toString();
    }

    /**
     * The JSON pointer of every member and element of the document (RFC 6901, as the problems write them), and each
     * member's name as it was sent (the pointer escapes "~" and "/").
     */
    private static void pointers(JsonNode node, String at, Set<String> into) {
        if (node.isObject()) {
            node.properties().forEach(member -> {
                String pointer = at + "/" + member.getKey().replace("~", "~0").replace("/", "~1");
                into.add(pointer);
                into.add(member.getKey());
                pointers(member.getValue(), pointer, into);
            });
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                into.add(at + "/" + i);
                pointers(node.get(i), at + "/" + i, into);
            }
        }
    }

    private static void texts(JsonNode node, Set<String> into) {
        if (node.isTextual()) {
            into.add(node.asText());
        }
        node.forEach(child -> texts(child, into));
    }

    private static RawHttp.Answer post(String template, String token, String mediaType, byte[] body) {
        List<byte[]> headers = new ArrayList<>();
        if (token != null) {
            headers.add(ascii("Authorization: Bearer " + token));
        }
        if (!mediaType.equals("geen")) {
            headers.add(ascii("Content-Type: " + (mediaType.equals("json") ? "application/json" : mediaType)));
        }
        return http.send(ascii("POST /api/nmc/v1" + template + " HTTP/1.1"), headers, body);
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static JsonNode read(String json) {
        try {
            return MAPPER.readTree(json);
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + json, e);
        }
    }

    private static synchronized String token(String caller) {
        if (Instant.now().isAfter(tokensMinted.plus(Duration.ofMinutes(20)))) {
            TOKENS.clear();
            tokensMinted = Instant.now();
        }
        return switch (caller) {
            case "geen" -> null;
            case "fout" -> "dit-is-geen-token";
            default ->
                TOKENS.computeIfAbsent(
                        caller,
                        c -> IAM.token(
                                switch (c) {
                                    case "A" -> TestNmc.DV_A;
                                    case "B" -> TestNmc.DV_B;
                                    default -> TestNmc.DV_SMALL_QUOTA;
                                }));
        };
    }

    /** The word at {@code index} if it is one of {@code choices}, else the choice its first character points at. */
    static String pick(List<String> choices, String[] words, int index) {
        if (index >= words.length || words[index].isEmpty()) {
            return choices.getFirst();
        }
        String word = words[index];
        return choices.contains(word) ? word : choices.get(word.charAt(0) % choices.size());
    }

    static int indexOf(byte[] bytes, byte wanted) {
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == wanted) {
                return i;
            }
        }
        return -1;
    }

    /** The body for a failure message: control characters as escapes, at most 2,000 characters. */
    static String printable(byte[] body) {
        StringBuilder out = new StringBuilder();
        String text = new String(body, StandardCharsets.UTF_8);
        text.chars()
                .limit(2000)
                .forEach(c -> out.append(
                        c < 0x20 || (c >= 0x7F && c <= 0x9F) ? String.format("\\u%04x", c) : String.valueOf((char) c)));
        return out.toString();
    }
}
