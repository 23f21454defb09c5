package nl.overheid.moz.nmc.flow;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import nl.overheid.moz.nmc.testing.Http;
import nl.overheid.moz.nmc.testing.ManualRunner;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.Test;

/**
 * Bulk submission: every item validated, counted and answered on its own, in order, as a single request would
 * have been; the request as a whole refused only for its envelope, its size, its media type or its caller.
 * Unhappy paths first.
 */
class BulkAcceptanceTest extends LifecycleTestBase {

    private static final String DECENTRAAL = "/api/nmc/v1/decentraal/notificaties/bulk";
    private static final String CENTRAAL = "/api/nmc/v1/centraal/notificaties/bulk";

    private static Map<String, Object> item(String dvRef) {
        return new HashMap<>(Map.of(
                "dvRef",
                dvRef,
                "berichttype",
                TestNmc.BERICHTTYPE,
                "emailadres",
                EMAIL,
                "personalisation",
                Map.of("tekst", SECRET_TEXT)));
    }

    private static String bulk(List<?> items) {
        return Http.json(Map.of("notificaties", items));
    }

    private int stored() {
        return Integer.parseInt(query("SELECT count(*) FROM notificatie", null).getFirst());
    }

    @Test
    void aRequestThatIsNotAListOfOneToAThousandObjectsIsRefusedAsAWholeAndStoresNothing() {
        List<Map<String, Object>> tooMany = new ArrayList<>();
        for (int i = 0; i < 1001; i++) {
            tooMany.add(item("TE-VEEL-" + i));
        }
        Map<String, String> bodies = new java.util.LinkedHashMap<>();
        bodies.put("[]", "/");
        bodies.put("{}", "/notificaties");
        bodies.put("{\"notificaties\":[]}", "/notificaties");
        bodies.put("{\"notificaties\":{\"dvRef\":\"X\"}}", "/notificaties");
        bodies.put(bulk(tooMany), "/notificaties");
        bodies.put("{\"notificaties\":[" + Http.json(item("EXTRA")) + "],\"extra\":1}", "/extra");
        bodies.forEach((body, name) -> {
            Http.Response refused = http.post(DECENTRAAL, tokenA(), body);
            assertThat(refused.status())
                    .as(body.length() > 80 ? body.substring(0, 80) : body)
                    .isEqualTo(400);
            assertThat(refused.contentType()).startsWith("application/problem+json");
            assertThat(refused.json().path("errors").findValuesAsText("name")).contains(name);
        });
        assertThat(http.post(DECENTRAAL, tokenA(), "{\"notificaties\":[").status())
                .isEqualTo(400);
        assertThat(http.request("POST", DECENTRAAL, tokenA(), "text/plain", bulk(List.of(item("T"))))
                        .status())
                .isEqualTo(415);
        assertThat(http.post(DECENTRAAL, null, bulk(List.of(item("T")))).status())
                .isEqualTo(401);
        assertThat(http.request("GET", DECENTRAAL, tokenA(), null, null).status())
                .isEqualTo(405);
        assertThat(stored()).isZero();
    }

    /**
     * Items are read and accepted a slice of a hundred at a time: a fault after the list, or in its last item, still
     * refuses the whole body with nothing stored, because the body is checked whole before the first item is taken.
     */
    @Test
    void aFaultAfterManyGoodItemsRefusesTheWholeBodyAndStoresNothing() {
        StringBuilder items = new StringBuilder();
        for (int i = 0; i < 250; i++) {
            items.append(i == 0 ? "" : ",").append(Http.json(item("VOOR-DE-FOUT-" + i)));
        }
        Map<String, String> bodies = new java.util.LinkedHashMap<>();
        bodies.put("{\"notificaties\":[" + items + "],\"extra\":1}", "/extra");
        bodies.put("{\"notificaties\":[" + items + "],\"notificaties\":7}", "/"); // a name given twice
        bodies.put("{\"notificaties\":[" + items + "]} x", "/"); // content after the body
        bodies.put("{\"notificaties\":[" + items + ",{\"dvRef\":\"X\"", "/");
        bodies.put("{\"notificaties\":[" + items + "]", "/");
        bodies.forEach((body, name) -> {
            Http.Response refused = http.post(DECENTRAAL, tokenA(), body);
            assertThat(refused.status()).as(name).isEqualTo(400);
            assertThat(refused.json().path("errors").findValuesAsText("name")).containsExactly(name);
        });
        assertThat(stored()).isZero();
    }

    @Test
    void aBodyOverTheBulkLimitIsA413() {
        restartWithConfig("http: {max-bulk-body-bytes: 100000}");
        List<Map<String, Object>> items = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            items.add(item("GROOT-" + i));
        }
        Http.Response refused = http.post(DECENTRAAL, tokenA(), bulk(items));
        assertThat(refused.status()).isEqualTo(413);
        assertThat(refused.contentType()).startsWith("application/problem+json");
        assertThat(stored()).isZero();
    }

    @Test
    void eachItemIsAnsweredInOrderAsASingleRequestWouldHaveBeen() {
        Map<String, Object> repeatOfEarlier = item("HERHAALD");
        UUID repeated =
                UUID.fromString(http.post("/api/nmc/v1/decentraal/notificaties", tokenA(), Http.json(repeatOfEarlier))
                        .json()
                        .path("id")
                        .asText());
        Map<String, Object> badEmail = item("FOUT-ADRES");
        badEmail.put("emailadres", "geen-adres");
        Map<String, Object> notAllowed = item("NIET-TOEGESTAAN");
        notAllowed.put("berichttype", "ander-bericht");
        Map<String, Object> unknownField = item("ONBEKEND-VELD");
        unknownField.put("kleur", "blauw");

        List<Object> items = List.of(
                item("NIEUW-1"),
                badEmail,
                repeatOfEarlier,
                notAllowed,
                item("NIEUW-2"),
                item("NIEUW-1"),
                unknownField,
                "geen object");
        Http.Response response = http.post(DECENTRAAL, tokenA(), bulk(items));
        assertThat(response.status()).as(response.body()).isEqualTo(200);
        JsonNode results = response.json().path("resultaten");
        assertThat(results).hasSize(items.size());
        List<Integer> statuses = new ArrayList<>();
        results.forEach(result -> statuses.add(result.path("status").asInt()));
        assertThat(statuses).containsExactly(202, 400, 202, 400, 202, 202, 400, 400);

        assertThat(results.get(1).path("probleem").path("errors").findValuesAsText("name"))
                .containsExactly("/notificaties/1/emailadres");
        assertThat(results.get(1).path("probleem").path("status").asInt()).isEqualTo(400);
        assertThat(results.get(3).path("probleem").path("errors").findValuesAsText("name"))
                .containsExactly("/notificaties/3/berichttype");
        assertThat(results.get(6).path("probleem").path("errors").findValuesAsText("name"))
                .containsExactly("/notificaties/6/kleur");
        assertThat(results.get(7).path("probleem").path("errors").findValuesAsText("name"))
                .containsExactly("/notificaties/7");
        assertThat(results.get(2).path("notificatie").path("id").asText())
                .as("a repeat of an earlier request is that notification")
                .isEqualTo(repeated.toString());
        assertThat(results.get(5).path("notificatie").path("id").asText())
                .as("a repeat within the request is the first one's notification")
                .isEqualTo(results.get(0).path("notificatie").path("id").asText());
        assertThat(results.get(0).path("notificatie").path("status").asText()).isEqualTo("aangenomen");
        assertThat(results.get(0).path("notificatie").path("versie").asInt()).isEqualTo(1);
        assertThat(response.body()).doesNotContain(EMAIL, SECRET_TEXT, "geen-adres");

        assertThat(stored()).as("the earlier one, NIEUW-1 and NIEUW-2").isEqualTo(3);
        assertThat(query("SELECT count(*) FROM event WHERE volgnummer = 1", null))
                .containsExactly("3");
        assertThat(query("SELECT count(*) FROM taak WHERE soort = 'verzenden'", null))
                .containsExactly("3");
        UUID nieuw =
                UUID.fromString(results.get(4).path("notificatie").path("id").asText());
        assertThat(status(nieuw)).isEqualTo("aangenomen:1");
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(nieuw))
                .as("a notification of a bulk request is sent like any other")
                .isEqualTo("verzonden:3");
    }

    /**
     * A submission sent again (the DV's retry after a time-out) is answered from the notifications its first sending
     * created, item by item, and its repeats are never sealed: only the new item's recipient and personalisation are
     * encrypted (the sealing stage counts one), and nothing is stored twice.
     */
    @Test
    void aSubmissionSentAgainIsAnsweredFromItsNotificationsAndSealsOnlyItsNewItems() {
        List<Object> first = List.of(item("OPNIEUW-1"), item("OPNIEUW-2"), item("OPNIEUW-3"));
        double sealedBefore = sealed(); // the registry is the JVM's, shared by every test's NMC
        Http.Response sent = http.post(DECENTRAAL, tokenA(), bulk(first));
        assertThat(sent.status()).as(sent.body()).isEqualTo(200);
        assertThat(sealed() - sealedBefore).isEqualTo(3);

        List<Object> again = new ArrayList<>(first);
        again.add(1, item("OPNIEUW-NIEUW"));
        Http.Response resent = http.post(DECENTRAAL, tokenA(), bulk(again));
        assertThat(resent.status()).as(resent.body()).isEqualTo(200);
        JsonNode before = sent.json().path("resultaten");
        JsonNode after = resent.json().path("resultaten");
        List<Integer> statuses = new ArrayList<>();
        after.forEach(result -> statuses.add(result.path("status").asInt()));
        assertThat(statuses).containsExactly(202, 202, 202, 202);
        for (int[] pair : new int[][] {{0, 0}, {1, 2}, {2, 3}}) {
            assertThat(after.get(pair[1]).path("notificatie").path("id").asText())
                    .isEqualTo(
                            before.get(pair[0]).path("notificatie").path("id").asText());
        }
        assertThat(sealed() - sealedBefore).as("only the new item is sealed").isEqualTo(4);
        assertThat(stored()).isEqualTo(4);
        assertThat(query("SELECT count(*) FROM event", null)).containsExactly("4");
        assertThat(query("SELECT count(*) FROM taak WHERE soort = 'verzenden'", null))
                .containsExactly("4");
    }

    /** Requests sealed so far: the acceptance's sealing stage, counted once per request it encrypts. */
    private double sealed() {
        return nl.overheid.moz.nmc.testing.PrometheusText.parse(
                        http.request("GET", "/observe/metrics", null, null, null)
                                .body())
                .value("nmc_acceptance_stage_duration_seconds_count", Map.of("stap", "verzegelen"));
    }

    /** Issue 18 §1: within one request too, two items that differ only in their batch id are one notification. */
    @Test
    void itemsThatDifferOnlyInTheirBatchIdAreOneNotification() {
        Map<String, Object> first = item("BATCH-1");
        first.put("batchId", "batch-a");
        Map<String, Object> second = item("BATCH-1");
        second.put("batchId", "batch-b");
        Http.Response response = http.post(DECENTRAAL, tokenA(), bulk(List.of(first, second)));
        assertThat(response.status()).as(response.body()).isEqualTo(200);
        JsonNode results = response.json().path("resultaten");
        assertThat(results.get(1).path("notificatie").path("id").asText())
                .isEqualTo(results.get(0).path("notificatie").path("id").asText());
        assertThat(stored()).isEqualTo(1);
        assertThat(query("SELECT batch_id FROM notificatie", null)).containsExactly("batch-a");
    }

    @Test
    void theQuotaCountsEachItemAndARepeatCountsNone() {
        String token = IAM.token(TestNmc.DV_SMALL_QUOTA, clock.instant());
        List<Object> items = List.of(item("Q-1"), item("Q-2"), item("Q-3"), item("Q-1"), item("Q-4"));
        Http.Response response = http.post(DECENTRAAL, token, bulk(items));
        assertThat(response.status()).isEqualTo(200);
        List<Integer> statuses = new ArrayList<>();
        response.json()
                .path("resultaten")
                .forEach(result -> statuses.add(result.path("status").asInt()));
        assertThat(statuses).containsExactly(202, 202, 429, 202, 429);
        assertThat(response.json()
                        .path("resultaten")
                        .get(2)
                        .path("probleem")
                        .path("type")
                        .asText())
                .endsWith("/quotum-overschreden");
        assertThat(response.header("Retry-After"))
                .hasValueSatisfying(value -> assertThat(Integer.parseInt(value)).isBetween(1, 61));
        assertThat(stored()).isEqualTo(2);

        // While the quota is used up a bulk is refused whole before its body is read (RequestLimitsTest), repeats
        // included; a single repeat is still the notification, and so is the bulk's once the minute has passed.
        String earlier = response.json()
                .path("resultaten")
                .get(1)
                .path("notificatie")
                .path("id")
                .asText();
        assertThat(http.post(DECENTRAAL, token, bulk(List.of(item("Q-2")))).status())
                .isEqualTo(429);
        Http.Response single = http.post("/api/nmc/v1/decentraal/notificaties", token, Http.json(item("Q-2")));
        assertThat(single.status())
                .as("a repeat over an exhausted quota is still the notification")
                .isEqualTo(202);
        assertThat(single.json().path("id").asText()).isEqualTo(earlier);
        clock.advance(java.time.Duration.ofSeconds(61));
        Http.Response again = http.post(DECENTRAAL, token, bulk(List.of(item("Q-2"))));
        assertThat(again.json().path("resultaten").get(0).path("status").asInt())
                .isEqualTo(202);
        assertThat(again.json()
                        .path("resultaten")
                        .get(0)
                        .path("notificatie")
                        .path("id")
                        .asText())
                .isEqualTo(earlier);
        assertThat(stored()).isEqualTo(2);
    }

    @Test
    void aThousandItemsAreCommittedInChunksAndAllAccepted() {
        List<Object> items = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            items.add(item("VEEL-" + i));
        }
        Http.Response response = http.post(DECENTRAAL, tokenA(), bulk(items));
        assertThat(response.status()).isEqualTo(200);
        List<String> ids = response.json().path("resultaten").findValuesAsText("id");
        assertThat(ids).hasSize(1000).doesNotHaveDuplicates();
        assertThat(stored()).isEqualTo(1000);
        assertThat(query("SELECT count(DISTINCT notificatie) FROM event", null)).containsExactly("1000");
    }

    @Test
    void theCentralisedRegimeHasItsBulkCallToo() {
        Map<String, Object> first = new HashMap<>(Map.of(
                "dvRef",
                "C-1",
                "berichttype",
                TestNmc.BERICHTTYPE,
                "identificatieType",
                "KVK",
                "identificatieNummer",
                "12345670"));
        Map<String, Object> decentralised = item("C-2");
        Http.Response response = http.post(CENTRAAL, tokenA(), bulk(List.of(first, decentralised)));
        assertThat(response.status()).isEqualTo(200);
        List<Integer> statuses = new ArrayList<>();
        response.json()
                .path("resultaten")
                .forEach(result -> statuses.add(result.path("status").asInt()));
        assertThat(statuses).as("an item of the other regime is invalid here").containsExactly(202, 400);
        assertThat(query("SELECT regie FROM notificatie", null)).containsExactly("centraal");
    }
}
