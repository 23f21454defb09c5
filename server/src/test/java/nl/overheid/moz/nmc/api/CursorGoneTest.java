package nl.overheid.moz.nmc.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import nl.overheid.moz.nmc.Nmc;
import nl.overheid.moz.nmc.feed.Cursor;
import nl.overheid.moz.nmc.feed.CursorCodec;
import nl.overheid.moz.nmc.testing.EventLogPartitions;
import nl.overheid.moz.nmc.testing.Http;
import nl.overheid.moz.nmc.testing.ManualRunner;
import nl.overheid.moz.nmc.testing.MutableClock;
import nl.overheid.moz.nmc.testing.PartiesStub;
import nl.overheid.moz.nmc.testing.TestDatabase;
import nl.overheid.moz.nmc.testing.TestIam;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every reason a cursor is gone is a 410 with a problem type of its own, on reading and on acknowledging, so a
 * DV can tell "retention dropped what I had not read" from an expired or foreign cursor. On a database of its
 * own: retention drops partitions here.
 */
class CursorGoneTest {

    private static final String FEED = "/api/nmc/v1/notificaties/wijzigingen";
    private static final String ACK = FEED + "/bevestiging";
    private static final String PROBLEMS = "https://nmc.moza.overheid.nl/problemen/";
    private static final TestDatabase DB = TestDatabase.separate();
    private static final TestIam IAM = new TestIam();

    private final MutableClock clock = MutableClock.startingNow();
    private final CursorCodec codec = new CursorCodec(TestNmc.CURSOR_KEY);
    private PartiesStub parties;
    private Nmc nmc;
    private Http http;

    @BeforeEach
    void start() {
        DB.reset();
        EventLogPartitions.reset(DB);
        parties = new PartiesStub();
        nmc = Nmc.start(TestNmc.config(DB, IAM, parties.baseUrl(), false, """
                retention:
                  event-log: P1D
                """), clock);
        http = Http.of(nmc);
    }

    @AfterEach
    void stop() {
        nmc.close();
        parties.close();
    }

    @Test
    void aCursorIntoAPartitionRetentionDroppedIsGoneWithItsOwnType() {
        accept("GONE-1");
        String cursor =
                http.get(FEED, token(TestNmc.DV_A)).json().path("cursor").asText();
        EventLogPartitions.cutAtNow(DB, true);
        accept("GONE-2");

        clock.advance(Duration.ofDays(1).plusSeconds(1));
        ManualRunner.of(nmc).runDutiesOnce(); // the DV read but did not acknowledge: nothing holds the partition

        assertGone(http.get(FEED + "?cursor=" + cursor, token(TestNmc.DV_A)), "cursor-partitie-verwijderd");
        assertGone(http.put(ACK, token(TestNmc.DV_A), "{\"cursor\":\"" + cursor + "\"}"), "cursor-partitie-verwijderd");
        JsonNode restart = http.get(FEED, token(TestNmc.DV_A)).json();
        assertThat(restart.path("events"))
                .as("without a cursor the DV restarts at the oldest event left")
                .hasSize(1);
        assertThat(restart.path("events").get(0).path("sequence").asText()).isEqualTo("1");
    }

    @Test
    void eachOtherReasonIsGoneWithItsOwnType() {
        accept("GONE-3");
        String cursor =
                http.get(FEED, token(TestNmc.DV_A)).json().path("cursor").asText();
        Cursor decoded = codec.decode(cursor).orElseThrow();
        String otherEpoch = codec.encode(
                new Cursor(decoded.epoch() + 1, decoded.transactionId(), decoded.eventId(), decoded.issuedAt()));
        String olderFormat = Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString(("c2.1." + decoded.transactionId() + "." + decoded.eventId() + "."
                                + decoded.issuedAt().getEpochSecond())
                        .getBytes());

        String epochType =
                assertGone(http.get(FEED + "?cursor=" + otherEpoch, token(TestNmc.DV_A)), "cursor-andere-epoch");
        String notRecognisedType =
                assertGone(http.get(FEED + "?cursor=" + olderFormat, token(TestNmc.DV_A)), "cursor-niet-herkend");
        String unknownEventType =
                assertGone(http.get(FEED + "?cursor=" + cursor, token(TestNmc.DV_B)), "cursor-event-onbekend");
        assertGone(http.put(ACK, token(TestNmc.DV_B), "{\"cursor\":\"" + cursor + "\"}"), "cursor-event-onbekend");

        clock.advance(Duration.ofDays(30).plusSeconds(1));
        String tooOldType = assertGone(http.get(FEED + "?cursor=" + cursor, token(TestNmc.DV_A)), "cursor-verlopen");
        assertGone(http.put(ACK, token(TestNmc.DV_A), "{\"cursor\":\"" + cursor + "\"}"), "cursor-verlopen");

        Set<String> types = Stream.of(
                        epochType,
                        notRecognisedType,
                        unknownEventType,
                        tooOldType,
                        PROBLEMS + "cursor-partitie-verwijderd")
                .collect(Collectors.toSet());
        assertThat(types).as("one type per reason").hasSize(5);
    }

    private void accept(String dvRef) {
        Http.Response response = http.post(
                "/api/nmc/v1/decentraal/notificaties",
                token(TestNmc.DV_A),
                Http.json(Map.of(
                        "dvRef",
                        dvRef,
                        "berichttype",
                        TestNmc.BERICHTTYPE,
                        "emailadres",
                        "ontvanger.gone@example.nl")));
        assertThat(response.status()).as(response.body()).isEqualTo(202);
    }

    private String token(String oin) {
        return IAM.token(oin, clock.instant());
    }

    /** A 410 problem of the given type, in Dutch, that gives nothing of the request away; returns the type. */
    private static String assertGone(Http.Response response, String type) {
        assertThat(response.status()).as(response.body()).isEqualTo(410);
        assertThat(response.contentType()).startsWith("application/problem+json");
        assertThat(response.header("API-Version")).contains("1.1.0");
        JsonNode problem = response.json();
        assertThat(problem.path("type").asText()).isEqualTo(PROBLEMS + type);
        assertThat(problem.path("status").asInt()).isEqualTo(410);
        assertThat(problem.path("title").asText()).startsWith("Cursor");
        assertThat(problem.path("detail").asText()).endsWith("begin opnieuw zonder cursor.");
        assertThat(response.body()).doesNotContain("ontvanger.gone").doesNotContain("GONE-");
        return problem.path("type").asText();
    }
}
