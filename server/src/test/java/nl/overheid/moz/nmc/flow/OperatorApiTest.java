package nl.overheid.moz.nmc.flow;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import nl.overheid.moz.nmc.testing.Http;
import nl.overheid.moz.nmc.testing.ManualRunner;
import nl.overheid.moz.nmc.testing.PartiesStub;
import nl.overheid.moz.nmc.testing.TestIam;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.Test;

/**
 * The operator API end to end, through HTTP only: an operator finds a parked task, sees why, reopens it and
 * watches it complete; forces a transition (one event) or is refused (nothing changes); keeps the register; and
 * every action leaves one audit row. DV and operator tokens are not interchangeable.
 */
class OperatorApiTest extends LifecycleTestBase {

    private static final String BASE = "/api/nmc-beheer/v1";
    private static final String OPERATOR = "beheerder-jansen";
    private static final String KVK = "12345670";
    private static final String ADDRESS = "ondernemer.beheer@bedrijf.example";

    private String operator() {
        return IAM.operatorToken(OPERATOR, clock.instant());
    }

    private Http.Response post(String path, Object body) {
        return http.post(BASE + path, operator(), Http.json(body));
    }

    private Http.Response put(String path, Object body) {
        return http.put(BASE + path, operator(), Http.json(body));
    }

    private Http.Response get(String path) {
        return http.get(BASE + path, operator());
    }

    private static long count(String sql) {
        return Long.parseLong(query(sql, null).getFirst());
    }

    @Test
    void anOperatorFindsAParkedTaskSeesWhyReopensItAndWatchesItComplete() {
        notify.profiel(KVK, ADDRESS);
        UUID id = acceptCentraal(DV_REF, KVK, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(postReceipt(receiptBody(id, 1, "permanent-failure")).status())
                .isEqualTo(200);
        ManualRunner.of(nmc).runWorkerOnce(nl.overheid.moz.nmc.engine.TaskKind.VERWERKEN);
        // Only the NMC's own failures park a task (a party's only postpone it): here its data key cannot be
        // unwrapped, at every try, until the operator has it repaired.
        String wrappedKey = query("SELECT encode(datasleutel_gewrapt, 'hex') FROM notificatie WHERE id = ?", id)
                .getFirst();
        execute("UPDATE notificatie SET datasleutel_gewrapt = '\\x00' WHERE id = ?", id);
        for (int round = 0; round < 7; round++) {
            ManualRunner.of(nmc).runWorkersOnce();
            clock.advance(Duration.ofSeconds(11));
        }

        // Find it: parked, of this kind and DV, with why.
        Http.Response list = get("/taken?soort=ongeldig-melden&dienstverlener=" + TestNmc.DV_A);
        assertThat(list.status()).as(list.body()).isEqualTo(200);
        JsonNode taken = list.json().path("taken");
        assertThat(taken).hasSize(1);
        JsonNode parked = taken.get(0);
        assertThat(parked.path("status").asText()).isEqualTo("mislukt");
        assertThat(parked.path("notificatie").asText()).isEqualTo(id.toString());
        assertThat(parked.path("dienstverlener").asText()).isEqualTo(TestNmc.DV_A);
        String why = parked.path("laatsteFout").asText();
        assertThat(why).isNotBlank();
        long taskId = parked.path("id").asLong();
        assertThat(get("/taken?fout=" + why).json().path("taken")).hasSize(1);
        assertThat(get("/taken?fout=iets-anders").json().path("taken")).isEmpty();
        assertThat(get("/taken?soort=verzenden").json().path("taken")).isEmpty();
        JsonNode one = get("/taken/" + taskId).json();
        assertThat(one.path("laatsteFout").asText()).isEqualTo(why);
        assertThat(one.path("pogingenteller").asInt())
                .as("the kind's five NMC-internal failures")
                .isEqualTo(5);

        // The key is repaired; reopen it.
        execute("UPDATE notificatie SET datasleutel_gewrapt = decode('" + wrappedKey + "', 'hex') WHERE id = ?", id);
        int reportsBefore = notify.server()
                .findAll(com.github.tomakehurst.wiremock.client.WireMock.deleteRequestedFor(
                        com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching(
                                PartiesStub.REPORT_PATH + ".+")))
                .size();
        Http.Response reopened = post(
                "/taken/heropeningen",
                Map.of("taken", List.of(taskId, 999_999_999L), "toelichting", "Datasleutel hersteld na onderhoud"));
        assertThat(reopened.status()).as(reopened.body()).isEqualTo(200);
        assertThat(reopened.json().path("heropend").get(0).asLong()).isEqualTo(taskId);
        assertThat(reopened.json().path("nietGeparkeerd").get(0).asLong()).isEqualTo(999_999_999L);
        JsonNode open = get("/taken/" + taskId).json();
        assertThat(open.path("status").asText()).isEqualTo("open");
        assertThat(open.path("pogingenteller").asInt()).isZero();
        assertThat(get("/taken").json().path("taken")).isEmpty();

        // Watch it complete: the report is made and the task is gone.
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(notify.server()
                        .findAll(com.github.tomakehurst.wiremock.client.WireMock.deleteRequestedFor(
                                com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching(
                                        PartiesStub.REPORT_PATH + ".+"))))
                .hasSize(reportsBefore + 1);
        assertThat(get("/taken/" + taskId).status()).isEqualTo(404);

        JsonNode audit = get("/beheeracties").json().path("acties");
        assertThat(audit).hasSize(1);
        assertThat(audit.get(0).path("beheerder").asText()).isEqualTo(OPERATOR);
        assertThat(audit.get(0).path("actie").asText()).isEqualTo("taken-heropenen");
        assertThat(audit.get(0).path("toelichting").asText()).isEqualTo("Datasleutel hersteld na onderhoud");
        assertThat(audit.get(0).path("details").path("heropend").get(0).asLong())
                .isEqualTo(taskId);
        assertThat(audit.toString()).doesNotContain(KVK).doesNotContain(ADDRESS).doesNotContain(DV_REF);
    }

    @Test
    void aDvTokenIsRefusedOnTheOperatorApiAndAnOperatorTokenOnTheDvApi() {
        assertThat(http.get(BASE + "/taken", tokenA()).status()).isEqualTo(401);
        assertThat(http.get(BASE + "/taken", null).status()).isEqualTo(401);
        assertThat(http.get(
                                BASE + "/taken",
                                IAM.operatorToken(
                                        OPERATOR, TestIam.OPERATOR_AUDIENCE, List.of("lezer"), clock.instant()))
                        .status())
                .isEqualTo(403);
        assertThat(http.get(
                                BASE + "/taken",
                                IAM.operatorToken(
                                        OPERATOR, TestIam.AUDIENCE, List.of(TestIam.OPERATOR_ROLE), clock.instant()))
                        .status())
                .as("an operator role for the DV audience")
                .isEqualTo(401);
        Http.Response dvApi = http.get("/api/nmc/v1/notificaties?dvRef=x", operator());
        assertThat(dvApi.status()).isEqualTo(401);
        assertThat(dvApi.contentType()).startsWith("application/problem+json");
        assertThat(get("/taken").status()).isEqualTo(200);
        assertThat(http.get(BASE + "/openapi.json", null).status()).isEqualTo(200);
        assertThat(count("SELECT count(*) FROM beheeractie")).isZero();
    }

    @Test
    void aForcedTransitionMakesExactlyOneEventAndARefusedOneChangesNothing() {
        UUID id = accept(DV_REF, Map.of());
        long eventsBefore = count("SELECT count(*) FROM event");

        Http.Response forced = post(
                "/notificaties/" + id + "/overgangen",
                Map.of(
                        "naar",
                        "technisch-mislukt",
                        "reden",
                        "technisch",
                        "toelichting",
                        "Template bij NotifyNL ingetrokken"));
        assertThat(forced.status()).as(forced.body()).isEqualTo(200);
        assertThat(forced.json().path("van").asText()).isEqualTo("aangenomen");
        assertThat(forced.json().path("versie").asInt()).isEqualTo(2);
        assertThat(count("SELECT count(*) FROM event")).isEqualTo(eventsBefore + 1);
        assertThat(status(id)).isEqualTo("technisch-mislukt:2");
        assertThat(query("SELECT soort FROM taak WHERE notificatie = ?", id))
                .as("its send is done; its erasure is planned once it is due")
                .isEmpty();
        assertThat(count("SELECT count(*) FROM beheeractie WHERE actie = 'overgang-forceren'"))
                .isEqualTo(1);

        Http.Response refused = post(
                "/notificaties/" + id + "/overgangen", Map.of("naar", "verzonden", "toelichting", "probeer opnieuw"));
        assertThat(refused.status()).as(refused.body()).isEqualTo(409);
        assertThat(refused.contentType()).startsWith("application/problem+json");
        assertThat(count("SELECT count(*) FROM event")).isEqualTo(eventsBefore + 1);
        assertThat(status(id)).isEqualTo("technisch-mislukt:2");
        assertThat(count("SELECT count(*) FROM beheeractie")).isEqualTo(1);

        assertThat(post(
                                "/notificaties/" + UUID.randomUUID() + "/overgangen",
                                Map.of("naar", "verlopen", "toelichting", "x"))
                        .status())
                .isEqualTo(404);
        assertThat(count("SELECT count(*) FROM beheeractie")).isEqualTo(1);
    }

    /**
     * Found by reading: a forced transition took any reden with any status, so the DV could see technisch-mislukt
     * without a reason or verlopen as onbereikbaar, pairs no path of the NMC makes and its contract rules out.
     */
    @Test
    void aForcedTransitionsRedenGoesWithItsStatus() {
        UUID id = accept("REDEN-1", Map.of());
        long eventsBefore = count("SELECT count(*) FROM event");
        for (Map<String, String> wrong : List.of(
                Map.of("naar", "verlopen", "reden", "onbereikbaar"),
                Map.of("naar", "niet-bezorgbaar"),
                Map.of("naar", "niet-bezorgbaar", "reden", "technisch"),
                Map.of("naar", "in-verzending", "reden", "onbereikbaar"),
                Map.of("naar", "technisch-mislukt", "reden", "geannuleerd"))) {
            Map<String, String> body = new java.util.HashMap<>(wrong);
            body.put("toelichting", "x");
            Http.Response refused = post("/notificaties/" + id + "/overgangen", body);
            assertThat(refused.status()).as(wrong + " -> " + refused.body()).isEqualTo(400);
            assertThat(refused.json().path("errors").get(0).path("name").asText())
                    .as(refused.body())
                    .isEqualTo("/reden");
        }
        assertThat(count("SELECT count(*) FROM event")).isEqualTo(eventsBefore);
        assertThat(count("SELECT count(*) FROM beheeractie")).isZero();
        assertThat(status(id)).isEqualTo("aangenomen:1");

        Http.Response forced =
                post("/notificaties/" + id + "/overgangen", Map.of("naar", "technisch-mislukt", "toelichting", "x"));
        assertThat(forced.status()).as(forced.body()).isEqualTo(200);
        assertThat(forced.json().path("reden").asText())
                .as("its one reden when none is given")
                .isEqualTo("technisch");
        assertThat(query("SELECT laatste_reden FROM notificatie WHERE id = ?", id))
                .containsExactly("technisch");
        UUID other = accept("REDEN-2", Map.of());
        assertThat(post("/notificaties/" + other + "/overgangen", Map.of("naar", "in-verzending", "toelichting", "x"))
                        .status())
                .isEqualTo(200);
        assertThat(post(
                                "/notificaties/" + other + "/overgangen",
                                Map.of("naar", "niet-bezorgbaar", "reden", "geen-contactgegevens", "toelichting", "x"))
                        .status())
                .isEqualTo(200);
    }

    /**
     * Design §6: a parked task "wacht op beheer, dat de taak heropent of de overgang forceert". A forced status that is
     * not terminal needs the work of its new phase, and the control duty plans it only for a notification without an
     * open or parked task: the old phase's tasks go with the transition. Forced to bezorgd beside a parked reconcile
     * task, a notification never became definitief-bezorgd; forced from aangenomen to in-verzending, its send found no
     * attempt and was planned again every minute, for ever.
     */
    @Test
    void aForcedStatusThatIsNotTerminalGetsTheWorkOfItsNewPhase() {
        UUID delivered = accept("FORCE-BEZORGD", Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(delivered)).isEqualTo("verzonden:3");
        execute("UPDATE taak SET status = 'mislukt', laatste_fout = 'kapot' WHERE notificatie = ?", delivered);
        Http.Response forced = post(
                "/notificaties/" + delivered + "/overgangen",
                Map.of("naar", "bezorgd", "toelichting", "Bezorging bevestigd door NotifyNL-beheer"));
        assertThat(forced.status()).as(forced.body()).isEqualTo(200);

        // the same with its reconciliation still open: it would ask NotifyNL until its retention ended, and hold the
        // finalise back all that while
        UUID deliveredOpen = accept("FORCE-BEZORGD-OPEN", Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(query("SELECT soort || ':' || status FROM taak WHERE notificatie = ?", deliveredOpen))
                .containsExactly("reconcilieren:open");
        forced = post(
                "/notificaties/" + deliveredOpen + "/overgangen",
                Map.of("naar", "bezorgd", "toelichting", "Bezorging bevestigd door NotifyNL-beheer"));
        assertThat(forced.status()).as(forced.body()).isEqualTo(200);

        UUID started = accept("FORCE-IN-VERZENDING", Map.of());
        forced = post(
                "/notificaties/" + started + "/overgangen",
                Map.of("naar", "in-verzending", "toelichting", "handmatig gestart"));
        assertThat(forced.status()).as(forced.body()).isEqualTo(200);

        for (int round = 0; round < 3; round++) {
            ManualRunner.of(nmc).runDutiesOnce();
            ManualRunner.of(nmc).runWorkersOnce();
        }
        assertThat(status(started)).as("its first attempt is made").isEqualTo("verzonden:3");
        clock.advance(Duration.ofDays(8));
        for (int round = 0; round < 2; round++) {
            ManualRunner.of(nmc).runDutiesOnce();
            ManualRunner.of(nmc).runWorkersOnce();
        }
        assertThat(status(delivered)).isEqualTo("definitief-bezorgd:5");
        assertThat(status(deliveredOpen)).isEqualTo("definitief-bezorgd:5");
    }

    @Test
    void theRegisterIsKeptValidatedAndUsedAndEveryActionIsAudited() {
        String oin = "00000001444444444000";
        Http.Response created = put(
                "/dienstverleners/" + oin,
                Map.of(
                        "naam",
                        "DV C",
                        "quotumPerMinuut",
                        60,
                        "berichttypen",
                        List.of(TestNmc.BERICHTTYPE),
                        "webhookUrl",
                        "http://127.0.0.1:9/webhook",
                        "webhookMaxMislukkingen",
                        3,
                        "bevestigingstermijn",
                        "P2D",
                        "toelichting",
                        "Onboarding DV C"));
        assertThat(created.status()).as(created.body()).isEqualTo(200);
        assertThat(created.json().path("bevestigingstermijn").asText()).isEqualTo("PT48H");
        assertThat(created.json().path("maxCursorleeftijd").asText()).isEqualTo("PT720H");
        // The new DV can send at once.
        Http.Response accepted = http.post(
                "/api/nmc/v1/decentraal/notificaties",
                IAM.token(oin, clock.instant()),
                Http.json(Map.of("dvRef", "C-1", "berichttype", TestNmc.BERICHTTYPE, "emailadres", EMAIL)));
        assertThat(accepted.status()).as(accepted.body()).isEqualTo(202);

        // Its berichttypen are the set given: taking one away refuses it (after the register cache's 5 s).
        assertThat(put(
                                "/dienstverleners/" + oin,
                                Map.of(
                                        "naam",
                                        "DV C",
                                        "quotumPerMinuut",
                                        60,
                                        "berichttypen",
                                        List.of(),
                                        "webhookUrl",
                                        "http://127.0.0.1:9/webhook",
                                        "toelichting",
                                        "Berichttype ingetrokken"))
                        .status())
                .isEqualTo(200);
        clock.advance(Duration.ofSeconds(6));
        assertThat(http.post(
                                "/api/nmc/v1/decentraal/notificaties",
                                IAM.token(oin, clock.instant()),
                                Http.json(Map.of(
                                        "dvRef", "C-2", "berichttype", TestNmc.BERICHTTYPE, "emailadres", EMAIL)))
                        .status())
                .isEqualTo(400);
        assertThat(get("/dienstverleners/" + oin).json().path("berichttypen")).isEmpty();
        assertThat(get("/dienstverleners").json().path("dienstverleners")).hasSize(4);

        // Refused register values change nothing and leave no audit row.
        long auditBefore = count("SELECT count(*) FROM beheeractie");
        Http.Response invalid = put(
                "/dienstverleners/" + oin,
                Map.of(
                        "naam",
                        "DV C",
                        "quotumPerMinuut",
                        60,
                        "berichttypen",
                        List.of("bestaat-niet"),
                        "webhookUrl",
                        "ftp://dv.example.nl/hook",
                        "bevestigingstermijn",
                        "PT0S",
                        "toelichting",
                        "fout"));
        assertThat(invalid.status()).as(invalid.body()).isEqualTo(400);
        assertThat(invalid.json().path("errors").findValuesAsText("name"))
                .containsExactlyInAnyOrder("/berichttypen/0", "/webhookUrl", "/bevestigingstermijn");
        assertThat(count("SELECT count(*) FROM beheeractie")).isEqualTo(auditBefore);
        assertThat(get("/dienstverleners/" + oin).json().path("naam").asText()).isEqualTo("DV C");

        Http.Response type = put(
                "/berichttypen/nieuw-bericht",
                Map.of(
                        "templateId",
                        TestNmc.TEMPLATE_ID,
                        "standaardGeldigheid",
                        "P3D",
                        "maxPogingen",
                        2,
                        "verwerkingsactiviteit",
                        TestNmc.PROCESSING_ACTIVITY,
                        "toelichting",
                        "Nieuw berichttype"));
        assertThat(type.status()).as(type.body()).isEqualTo(200);
        assertThat(query(
                        "SELECT max_pogingenteller || ':' || standaard_geldigheid FROM berichttype WHERE code = "
                                + "'nieuw-bericht'",
                        null))
                .containsExactly("2:72:00:00");

        // The webhook, the epoch, the KEK and the pepper.
        assertThat(post("/dienstverleners/" + TestNmc.DV_B + "/webhook/hervatting", Map.of("toelichting", "x"))
                        .status())
                .as("DV B has no webhook")
                .isEqualTo(404);
        // no duty round first: DV C's registration planned its webhook's position (found by reading: until the
        // planning duty ran, up to a minute, this was a 404 "no webhook")
        Http.Response resumed = post(
                "/dienstverleners/" + oin + "/webhook/hervatting", Map.of("toelichting", "DV meldt webhook hersteld"));
        assertThat(resumed.status()).as(resumed.body()).isEqualTo(200);
        assertThat(resumed.json().path("status").asText()).isEqualTo("actief");

        int epoch = get("/cluster-epoch").json().path("epoch").asInt();
        assertThat(post("/cluster-epoch/verhoging", Map.of("huidigeEpoch", epoch + 1, "toelichting", "x"))
                        .status())
                .isEqualTo(409);
        Http.Response raised = post(
                "/cluster-epoch/verhoging",
                Map.of("huidigeEpoch", epoch, "toelichting", "Promotie van standby na failover"));
        assertThat(raised.status()).as(raised.body()).isEqualTo(200);
        assertThat(raised.json().path("epoch").asInt()).isEqualTo(epoch + 1);
        assertThat(post("/cluster-epoch/verhoging", Map.of("huidigeEpoch", epoch, "toelichting", "nog eens"))
                        .status())
                .as("a repeat does not raise it twice")
                .isEqualTo(409);

        Http.Response rewrap = post("/kek/herwrapping", Map.of("toelichting", "KEK-rotatie"));
        assertThat(rewrap.status()).as(rewrap.body()).isEqualTo(200);
        assertThat(rewrap.json().path("huidigeVersie").asInt()).isEqualTo(1);
        assertThat(post("/peppers/compromitteringen", Map.of("doel", "dvref", "versie", 1, "toelichting", "x"))
                        .status())
                .as("the only dvRef pepper version")
                .isEqualTo(409);

        List<String> actions = query("SELECT actie || ':' || beheerder FROM beheeractie ORDER BY id", null);
        assertThat(actions)
                .containsExactly(
                        "dienstverlener-vastleggen:" + OPERATOR,
                        "dienstverlener-vastleggen:" + OPERATOR,
                        "berichttype-vastleggen:" + OPERATOR,
                        "webhook-hervatten:" + OPERATOR,
                        "cluster-epoch-verhogen:" + OPERATOR,
                        "kek-herwrappen:" + OPERATOR);
        assertThat(get("/beheeracties?actie=dienstverlener-vastleggen").json().path("acties"))
                .hasSize(2);
        JsonNode page = get("/beheeracties?limit=4").json();
        assertThat(page.path("acties")).hasSize(4);
        assertThat(get("/beheeracties?limit=4&na=" + page.path("volgende").asLong())
                        .json()
                        .path("acties"))
                .hasSize(2);
        assertThat(get("/beheeracties?tot=" + clock.instant().minusSeconds(60))
                        .json()
                        .path("acties"))
                .isEmpty();
    }

    @Test
    void aPepperVersionIsMarkedCompromisedWhenAnotherCanTakeOver() {
        restartWithConfig("""
                privacy:
                  pepper:
                    current-version: 2
                    versions:
                      "2": "%s"
                """.formatted(java.util.Base64.getEncoder()
                .encodeToString("test-pepper-2-0123456789abcdef0123456789".getBytes())));
        Http.Response marked = post(
                "/peppers/compromitteringen",
                Map.of("doel", "dvref", "versie", 1, "toelichting", "Pepper 1 uitgelekt (incident 42)"));
        assertThat(marked.status()).as(marked.body()).isEqualTo(200);
        assertThat(query("SELECT doel || ':' || versie FROM pepper_gecompromitteerd", null))
                .containsExactly("dvref:1");
        assertThat(query("SELECT actie || ':' || onderwerp FROM beheeractie", null))
                .containsExactly("pepper-compromitteren:pepper dvref 1");
    }

    /**
     * Found by reading: the check that another version can take over was made against the instance's own view of
     * the marks, up to a duty interval old. Two instances (or two calls at once) could mark the last two versions;
     * the second committed, then failed with a 500 and no audit, and every acceptance after it failed everywhere.
     * Shown here one after the other (the stale view); two at the same moment are kept apart by the advisory lock the
     * check and the mark run under, which this test does not time.
     */
    @Test
    void twoInstancesCannotTogetherMarkEveryPepperVersionCompromised() {
        String twoVersions = """
                privacy:
                  pepper:
                    current-version: 2
                    versions:
                      "2": "%s"
                """.formatted(java.util.Base64.getEncoder()
                .encodeToString("test-pepper-2-0123456789abcdef0123456789".getBytes()));
        restartWithConfig(twoVersions);
        try (nl.overheid.moz.nmc.Nmc other = startAnother(twoVersions)) {
            Http.Response first = post(
                    "/peppers/compromitteringen", Map.of("doel", "dvref", "versie", 1, "toelichting", "incident 42"));
            assertThat(first.status()).as(first.body()).isEqualTo(200);
            // the other instance has not yet run its duty: its own view still has both versions usable
            Http.Response second = Http.of(other)
                    .post(
                            BASE + "/peppers/compromitteringen",
                            operator(),
                            Http.json(Map.of("doel", "dvref", "versie", 2, "toelichting", "incident 43")));
            assertThat(second.status()).as(second.body()).isEqualTo(409);
            assertThat(second.contentType()).startsWith("application/problem+json");
        }
        assertThat(query("SELECT doel || ':' || versie FROM pepper_gecompromitteerd", null))
                .containsExactly("dvref:1");
        assertThat(query("SELECT actie || ':' || onderwerp FROM beheeractie", null))
                .containsExactly("pepper-compromitteren:pepper dvref 1");
        ManualRunner.of(nmc).runDutiesOnce();
        assertThat(http.post(
                                "/api/nmc/v1/decentraal/notificaties",
                                IAM.token(TestNmc.DV_A, clock.instant()),
                                Http.json(Map.of(
                                        "dvRef", "NA-MARKERING",
                                        "berichttype", TestNmc.BERICHTTYPE,
                                        "emailadres", "iemand@example.nl")))
                        .status())
                .isEqualTo(202);
    }

    /** Found by reading: the contract takes 2000 characters, the database's CHECK took 500, a longer one was a 500. */
    @Test
    void aProcessingActivityAsLongAsTheContractAllowsIsStored() {
        String prefix = "https://register.example.nl/verwerkingsactiviteiten/";
        String longest = prefix + "a".repeat(2000 - prefix.length());
        Http.Response stored = put(
                "/berichttypen/lange-activiteit",
                Map.of("templateId", TestNmc.TEMPLATE_ID, "verwerkingsactiviteit", longest, "toelichting", "x"));
        assertThat(stored.status()).as(stored.body()).isEqualTo(200);
        assertThat(query("SELECT length(verwerkingsactiviteit) FROM berichttype WHERE code = 'lange-activiteit'", null))
                .containsExactly("2000");
        Http.Response tooLong = put(
                "/berichttypen/te-lange-activiteit",
                Map.of("templateId", TestNmc.TEMPLATE_ID, "verwerkingsactiviteit", longest + "a", "toelichting", "x"));
        assertThat(tooLong.status()).as(tooLong.body()).isEqualTo(400);
        assertThat(tooLong.body()).contains("/verwerkingsactiviteit");
    }

    @Test
    void badInputIsAProblemAndChangesNothing() {
        record Case(String method, String path, String contentType, String body, int status) {}
        // DV A's registration with one duration field set: refused
        java.util.function.BiFunction<String, String, Case> dvWith = (field, value) -> new Case(
                "PUT",
                "/dienstverleners/" + TestNmc.DV_A,
                "application/json",
                "{\"naam\": \"x\", \"quotumPerMinuut\": 1, \"berichttypen\": [], \"" + field + "\": \"" + value
                        + "\", \"toelichting\": \"x\"}",
                400);
        List<Case> cases = List.of(
                new Case("POST", "/taken/heropeningen", "application/json", "{\"taken\": [1]}", 400),
                new Case(
                        "POST",
                        "/taken/heropeningen",
                        "application/json",
                        "{\"taken\": [], \"toelichting\": \"x\"}",
                        400),
                new Case(
                        "POST",
                        "/taken/heropeningen",
                        "application/json",
                        "{\"taken\": [1], \"toelichting\": \"x\", \"extra\": 1}",
                        400),
                new Case("POST", "/taken/heropeningen", "text/plain", "taken", 415),
                new Case("POST", "/taken/heropeningen", "application/json", "{", 400),
                new Case("GET", "/taken?limit=0", null, null, 400),
                new Case("GET", "/taken?limit=501", null, null, 400),
                new Case("GET", "/taken?soort=bestaat-niet", null, null, 400),
                new Case("GET", "/taken?na=-1", null, null, 400),
                new Case("GET", "/taken?dienstverlener=123", null, null, 400),
                new Case("GET", "/taken/abc", null, null, 400),
                new Case("GET", "/taken/1", null, null, 404),
                new Case("GET", "/taken/0", null, null, 400),
                new Case("GET", "/taken/-1", null, null, 400),
                new Case("DELETE", "/taken", null, null, 405),
                new Case("GET", "/bestaat-niet", null, null, 404),
                new Case("GET", "/dienstverleners/123", null, null, 400),
                new Case("GET", "/dienstverleners/00000009999999999000", null, null, 404),
                new Case(
                        "PUT",
                        "/dienstverleners/" + TestNmc.DV_A,
                        "application/json",
                        "{\"naam\": \"x\", \"quotumPerMinuut\": 0, \"berichttypen\": [], \"toelichting\": \"x\"}",
                        400),
                dvWith.apply("bevestigingstermijn", "P1M"),
                new Case(
                        "PUT",
                        "/berichttypen/Hoofdletters",
                        "application/json",
                        "{\"templateId\": \"" + TestNmc.TEMPLATE_ID
                                + "\", \"verwerkingsactiviteit\": \"https://x.nl/a\"," + " \"toelichting\": \"x\"}",
                        400),
                new Case(
                        "PUT",
                        "/berichttypen/x",
                        "application/json",
                        "{\"templateId\": \"geen-uuid\", \"verwerkingsactiviteit\": \"https://x.nl/a\","
                                + " \"toelichting\": \"x\"}",
                        400),
                // a NotifyNL service without configuration has no send budget: its sends would never be claimed
                new Case(
                        "PUT",
                        "/berichttypen/x",
                        "application/json",
                        "{\"templateId\": \"" + TestNmc.TEMPLATE_ID + "\", \"notifyService\": \"niet-ingericht\","
                                + " \"verwerkingsactiviteit\": \"https://x.nl/a\", \"toelichting\": \"x\"}",
                        400),
                new Case(
                        "POST",
                        "/notificaties/geen-uuid/overgangen",
                        "application/json",
                        "{\"naar\": \"verlopen\", \"toelichting\": \"x\"}",
                        400),
                new Case(
                        "POST",
                        "/notificaties/" + UUID.randomUUID() + "/overgangen",
                        "application/json",
                        "{\"naar\": \"bestaat-niet\", \"toelichting\": \"x\"}",
                        400),
                new Case(
                        "POST",
                        "/notificaties/" + UUID.randomUUID() + "/overgangen",
                        "application/json",
                        "{\"naar\": \"verlopen\", \"toelichting\": \"\"}",
                        400),
                new Case("POST", "/cluster-epoch/verhoging", "application/json", "{\"toelichting\": \"x\"}", 400),
                new Case(
                        "POST",
                        "/peppers/compromitteringen",
                        "application/json",
                        "{\"doel\": \"iets\", \"versie\": 1, \"toelichting\": \"x\"}",
                        400),
                new Case("GET", "/beheeracties?van=gisteren", null, null, 400),
                // OffsetDateTime.parse takes years beyond four digits, which neither Java's instant to UTC nor
                // PostgreSQL holds: each was a 500
                new Case("GET", "/beheeracties?van=%2B999999999-12-31T23:59:59-18:00", null, null, 400),
                new Case("GET", "/beheeracties?tot=%2B300000-01-01T00:00:00Z", null, null, 400),
                new Case("GET", "/beheeracties?van=2026-01-01t00:00:00z", null, null, 400),
                // numbers beyond what the model's int and long hold: each was a 500 when it bound
                new Case(
                        "POST",
                        "/cluster-epoch/verhoging",
                        "application/json",
                        "{\"huidigeEpoch\": 2147483648, \"toelichting\": \"x\"}",
                        400),
                new Case(
                        "POST",
                        "/taken/heropeningen",
                        "application/json",
                        "{\"taken\": [9223372036854775808], \"toelichting\": \"x\"}",
                        400),
                // a duration PostgreSQL's interval does not hold (a 500), and one of under a second (stored as 0 s)
                dvWith.apply("bevestigingstermijn", "P9999999999D"),
                // within PostgreSQL's interval, but now minus it is before 4713 BC: every round of the duty that
                // counts unacknowledged statuses failed for every DV
                dvWith.apply("bevestigingstermijn", "PT99999999H"),
                dvWith.apply("maxCursorleeftijd", "PT0.4S"),
                // a "uri" the schema's format check lets through and java.net.URI does not read: each was a 500
                dvWith.apply("webhookUrl", "https://"),
                dvWith.apply("webhookUrl", "x:"),
                dvWith.apply("beheerkanaal", "//"),
                new Case(
                        "PUT",
                        "/berichttypen/x",
                        "application/json",
                        "{\"templateId\": \"" + TestNmc.TEMPLATE_ID + "\", \"verwerkingsactiviteit\": \"x:\","
                                + " \"toelichting\": \"x\"}",
                        400),
                new Case("GET", "/beheeracties?actie=iets", null, null, 400),
                // a parameter named without a value read as absent: an unfiltered listing for an operator whose
                // script lost the value
                new Case("GET", "/taken?fout", null, null, 400),
                new Case("GET", "/taken?dienstverlener&limit=5", null, null, 400),
                new Case("GET", "/taken?soort", null, null, 400),
                new Case("GET", "/taken?na", null, null, 400),
                new Case("GET", "/beheeracties?actie", null, null, 400),
                new Case("GET", "/beheeracties?van", null, null, 400),
                new Case("GET", "/beheeracties?tot", null, null, 400),
                new Case("GET", "/beheeracties?limit", null, null, 400));
        String dvABefore = get("/dienstverleners/" + TestNmc.DV_A).body();
        for (Case c : cases) {
            Http.Response response = http.request(c.method(), BASE + c.path(), operator(), c.contentType(), c.body());
            assertThat(response.status()).as(c + " -> " + response.body()).isEqualTo(c.status());
            assertThat(response.contentType()).as(c.toString()).startsWith("application/problem+json");
            assertThat(response.header("API-Version"))
                    .as(c + ": the operator API's own info.version, not the DV API's")
                    .hasValue("1.0.0");
            if (c.status() == 400) {
                assertThat(response.json().path("errors").isArray())
                        .as(c + " -> " + response.body())
                        .isTrue();
            }
        }
        assertThat(get("/dienstverleners/" + TestNmc.DV_A).body()).isEqualTo(dvABefore);
        assertThat(count("SELECT epoch FROM cluster_epoch")).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM beheeractie")).isZero();
    }
}
