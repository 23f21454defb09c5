package nl.overheid.moz.nmc.flow;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import nl.overheid.moz.nmc.sending.SendPipeline;
import nl.overheid.moz.nmc.testing.Http;
import nl.overheid.moz.nmc.testing.ManualRunner;
import nl.overheid.moz.nmc.testing.PartiesStub;
import nl.overheid.moz.nmc.testing.PrometheusText;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every kind of NotifyNL answer to a send (ARCHITECTURE §7.4, "NotifyNL's answers"), unhappy paths first: for each, the
 * notification's outcome, the attempt, the send task's state and counters, and the metric. No refusal of the setup
 * ever ends a notification {@code onbereikbaar}; the daily limit closes the service's budget instead of knocking
 * again, and burns neither attempts nor LDV records in a loop.
 */
class NotifyNlAnswersFlowTest extends LifecycleTestBase {

    private static final String TRIAL_MODE =
            "Can\u2019t send to this recipient when service is in trial mode \u2013 see "
                    + "https://www.notifications.service.gov.uk/trial-mode";
    private static final String BASE = "/api/nmc-beheer/v1";

    // ---- refusals of the setup: never the notification's fault

    @ParameterizedTest(name = "{0} {1} \"{2}\" -> {3}")
    @CsvSource(
            delimiter = '|',
            value = {
                "400|BadRequestError|Template not found|notifynl-template-onbekend",
                "400|BadRequestError|Template has been deleted|notifynl-template-verwijderd",
                "400|BadRequestError|sms template is not suitable for email notification|notifynl-template-geen-email",
                "400|BadRequestError|Missing personalisation: naam, datum|notifynl-personalisatie-ontbreekt",
                "400|BadRequestError|Your message is empty.|notifynl-inhoud-ongeldig",
                "400|BadRequestError|TRIAL|notifynl-proefmodus",
                "400|BadRequestError|Can\u2019t send to this recipient using a team-only API key|notifynl-teamsleutel",
                "400|BadRequestError|Service is not allowed to send emails|notifynl-geen-emailrecht",
                "400|ValidationError|reference 12 is not of type string|notifynl-verzoek-ongeldig",
                "400|BadRequestError|Something NotifyNL may say one day|notifynl-weigering-onbekend"
            })
    void aRefusalOfTheSetupPostponesWithoutBlameAndParksAfterTheBoundedTries(
            int status, String error, String message, String errorClass) {
        notify.refuse(status, error, message.equals("TRIAL") ? TRIAL_MODE : message);
        double before = metric("nmc_notifynl_setup_errors_total", errorClass);
        double parkedBefore = metric("nmc_notifynl_setup_errors_parked_total", errorClass);
        UUID id = accept(DV_REF, Map.of());

        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).as("not blamed: still on its way").isEqualTo("in-verzending:2");
        assertThat(pogingen(id)).as("the attempt is not used up").containsExactly("1:gepland");
        assertThat(task(id)).isEqualTo("open|" + errorClass + "|0|1");
        assertThat(metric("nmc_notifynl_setup_errors_total", errorClass)).isEqualTo(before + 1);

        // NotifyNL keeps refusing: the fifth refusal (notifynl.setup-error-max-tries) parks it for an operator
        for (int round = 2; round <= 5; round++) {
            clock.advance(Duration.ofMinutes(20));
            ManualRunner.of(nmc).runWorkersOnce();
        }
        assertThat(task(id)).isEqualTo("mislukt|" + errorClass + "|0|5");
        assertThat(status(id)).isEqualTo("in-verzending:2");
        assertThat(pogingen(id)).containsExactly("1:gepland");
        assertThat(metric("nmc_notifynl_setup_errors_total", errorClass)).isEqualTo(before + 5);
        assertThat(metric("nmc_notifynl_setup_errors_parked_total", errorClass)).isEqualTo(parkedBefore + 1);
        ManualRunner.of(nmc).runDutiesOnce();
        assertThat(scrape().value(
                                "nmc_notifynl_setup_errors_parked_tasks",
                                Map.of("berichttype", TestNmc.BERICHTTYPE, "service", "standaard", "fout", errorClass)))
                .as("the alert-ready gauge")
                .isEqualTo(1);
        clock.advance(Duration.ofHours(1));
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(notify.server().findAll(postRequestedFor(urlPathEqualTo("/v2/notifications/email"))))
                .as("a parked task is not tried again")
                .hasSize(5);
        assertThat(status(id)).doesNotStartWith("niet-bezorgbaar");
    }

    /**
     * Found by a read of the engine (review at stop 40, finding 7): a fresh send's backoff runs through {@code
     * notifynl.setup-error-max-tries} refusals in seconds (here 1, 2, 4, 8 s; in production 75 s), so an ingress in
     * front of NotifyNL answering its own HTML 400 for a minute, during a deploy, parked every send of that minute, each
     * to be reopened by an operator. Parking now also needs the refusals to have lasted {@code
     * notifynl.setup-error-min-span} (30 minutes) since the first: the burst passes and the send goes out; refusals
     * that last do park, at the first refusal after the span.
     */
    @Test
    void aBurstOfSetupRefusalsShorterThanTheMinimumSpanParksNothingButLastingRefusalsDo() {
        notify.server()
                .stubFor(post(urlPathEqualTo("/v2/notifications/email"))
                        .atPriority(1)
                        .willReturn(aResponse()
                                .withStatus(400)
                                .withHeader("Content-Type", "text/html")
                                .withBody("<html><body><h1>400 Bad Request</h1></body></html>")));
        UUID burst = accept(DV_REF, Map.of());
        triedThroughTheBackoff(burst, 7);
        assertThat(task(burst))
                .as("seven refusals within 1 + 2 + 4 + 8 + 10 + 10 s: postponed, not parked")
                .isEqualTo("open|notifynl-weigering-onbekend|0|7");
        notify.reset(); // the deploy is over
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(burst)).isEqualTo("verzonden:3");
        assertThat(pogingen(burst)).as("the attempt was not used up").containsExactly("1:verzonden");

        notify.refuse(400, "BadRequestError", "Template not found");
        UUID lasting = accept(DV_REF + "-2", Map.of());
        triedThroughTheBackoff(lasting, 5);
        assertThat(task(lasting))
                .as("the fifth refusal, 15 s after the first: not yet parked")
                .isEqualTo("open|notifynl-template-onbekend|0|5");
        clock.advance(Duration.ofMinutes(30));
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(task(lasting))
                .as("the first refusal 30 minutes after the first parks it")
                .isEqualTo("mislukt|notifynl-template-onbekend|0|6");
        assertThat(status(lasting)).isEqualTo("in-verzending:2");
    }

    /**
     * ADR 0024: "Een 401, 403, 429 of 5xx … betreft de aanroep, niet de poging: de taak wordt uitgesteld en herhaald …;
     * het wachten wordt alleen door geldig_tot begrensd". Found by a read against the seeds: a refused key or service
     * was parked after five refusals like a template error, so a key fixed after five minutes left every send of that
     * window in-verzending until an operator reopened each task. Tried again, never parked; logged five times.
     */
    @ParameterizedTest(name = "{0} \"{2}\" -> {3}")
    @CsvSource(
            delimiter = '|',
            value = {
                "401|AuthError|Unauthorized, authentication token must be provided|notifynl-sleutel-ongeldig",
                "403|AuthError|Invalid token: API key revoked|notifynl-sleutel-ingetrokken",
                "403|AuthError|Invalid token: service is archived|notifynl-service-gearchiveerd",
                "403|AuthError|Invalid token: API key not found|notifynl-sleutel-ongeldig"
            })
    void aRefusalOfTheKeyOrTheServiceIsTriedAgainUntilItIsFixedNeverParked(
            int status, String error, String message, String errorClass) {
        notify.refuse(status, error, message);
        double before = metric("nmc_notifynl_setup_errors_total", errorClass);
        double parkedBefore = metric("nmc_notifynl_setup_errors_parked_total", errorClass);
        UUID id = accept(DV_REF, Map.of());
        for (int round = 1; round <= 8; round++) {
            ManualRunner.of(nmc).runWorkersOnce();
            clock.advance(Duration.ofMinutes(20));
        }
        assertThat(task(id)).isEqualTo("open|" + errorClass + "|0|8");
        assertThat(status(id)).as("not blamed: still on its way").isEqualTo("in-verzending:2");
        assertThat(pogingen(id)).as("the attempt is not used up").containsExactly("1:gepland");
        assertThat(metric("nmc_notifynl_setup_errors_total", errorClass)).isEqualTo(before + 8);
        assertThat(metric("nmc_notifynl_setup_errors_parked_total", errorClass)).isEqualTo(parkedBefore);
        assertThat(logs.of(SendPipeline.class).stream()
                        .filter(record -> record.getLevel() == Level.WARNING)
                        .count())
                .as("one line for each of the bounded tries, then counted only")
                .isEqualTo(5);

        notify.reset(); // the key is fixed
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).isEqualTo("verzonden:3");
        assertThat(notify.server().findAll(postRequestedFor(urlPathEqualTo("/v2/notifications/email"))))
                .hasSize(9);
    }

    /**
     * Found by a second read: the key's refusals, never parked, counted in the same counter as the template's, so after
     * a key outage the first template refusal parked the send at once. Each kind has its own count.
     */
    @Test
    void refusalsOfTheKeyDoNotUseUpTheTriesOfOtherSetupErrors() {
        notify.refuse(403, "AuthError", "Invalid token: API key revoked");
        UUID id = accept(DV_REF, Map.of());
        for (int round = 1; round <= 6; round++) {
            ManualRunner.of(nmc).runWorkersOnce();
            clock.advance(Duration.ofMinutes(20));
        }
        notify.reset();
        notify.refuse(400, "BadRequestError", "Template not found");
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(task(id))
                .as("the first template refusal postpones, as it does without the key's before it")
                .isEqualTo("open|notifynl-template-onbekend|0|7");
    }

    /**
     * ADR 0024: "een uitstel dat geldig_tot passeert: verlopen". A send postponed with backoff (up to 15 minutes) is
     * due just after geldig_tot, not at the end of its wait: the DV hears verlopen then, not a quarter of an hour on.
     */
    @Test
    void aPostponementThatWouldPassGeldigTotIsDueJustAfterItAndEndsVerlopenThen() {
        notify.refuse(403, "AuthError", "Invalid token: API key revoked");
        Instant geldigTot = clock.instant().plus(Duration.ofSeconds(10));
        UUID id = accept(DV_REF, Map.of("geldigTot", geldigTot.toString()));
        // the tests' backoff: 1 s, 2 s, 4 s, 8 s (engine.backoff-base PT1S): refused at 0, 1, 3 and 7 s
        for (int round = 1; round <= 4; round++) {
            ManualRunner.of(nmc).runWorkersOnce();
            if (round < 4) {
                clock.advance(Duration.between(clock.instant(), due(id)));
            }
        }
        assertThat(due(id))
                .as("the fourth wait (8 s from 7 s on) would end after geldig_tot (10 s)")
                .isEqualTo(geldigTot.plusSeconds(1));
        clock.advance(Duration.between(clock.instant(), geldigTot.plusSeconds(1)));
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(http.get("/api/nmc/v1/notificaties/" + id, tokenA())
                        .json()
                        .path("status")
                        .asText())
                .isEqualTo("verlopen");
        assertThat(notify.server().findAll(postRequestedFor(urlPathEqualTo("/v2/notifications/email"))))
                .hasSize(4);
    }

    @Test
    void anOperatorWhoFixedTheSetupReopensTheParkedSendsAndTheyAreDelivered() {
        notify.refuse(400, "BadRequestError", TRIAL_MODE);
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ids.add(accept("PROEF-" + i, Map.of()));
        }
        for (int round = 1; round <= 5; round++) {
            ManualRunner.of(nmc).runWorkersOnce();
            clock.advance(Duration.ofMinutes(20));
        }
        String operator = IAM.operatorToken("beheerder-jansen", clock.instant());
        Http.Response list = http.get(BASE + "/taken?soort=verzenden&fout=notifynl-proefmodus", operator);
        assertThat(list.status()).as(list.body()).isEqualTo(200);
        JsonNode taken = list.json().path("taken");
        assertThat(taken).hasSize(3);
        assertThat(taken.get(0).path("laatsteFout").asText()).isEqualTo("notifynl-proefmodus");
        List<Long> taskIds = new ArrayList<>();
        taken.forEach(t -> taskIds.add(t.path("id").asLong()));

        notify.reset(); // the service left trial mode
        Http.Response reopened = http.post(
                BASE + "/taken/heropeningen",
                operator,
                Http.json(Map.of("taken", taskIds, "toelichting", "dienst uit de proefmodus")));
        assertThat(reopened.status()).as(reopened.body()).isEqualTo(200);
        assertThat(reopened.json().path("heropend")).hasSize(3);
        ManualRunner.of(nmc).runWorkersOnce();
        for (UUID id : ids) {
            assertThat(status(id)).isEqualTo("verzonden:3");
            receipt(id, 1, "delivered");
            assertThat(status(id)).isEqualTo("bezorgd:4");
        }
    }

    @Test
    void aReopenedTaskGetsItsTriesAgain() {
        notify.refuse(400, "BadRequestError", "Template not found");
        UUID id = accept(DV_REF, Map.of());
        for (int round = 1; round <= 5; round++) {
            ManualRunner.of(nmc).runWorkersOnce();
            clock.advance(Duration.ofMinutes(20));
        }
        assertThat(task(id)).startsWith("mislukt|");
        long taskId = Long.parseLong(query("SELECT id FROM taak WHERE notificatie = ? AND soort = 'verzenden'", id)
                .getFirst());
        String operator = IAM.operatorToken("beheerder-jansen", clock.instant());
        assertThat(http.post(
                                BASE + "/taken/heropeningen",
                                operator,
                                Http.json(Map.of("taken", List.of(taskId), "toelichting", "template hersteld")))
                        .status())
                .isEqualTo(200);
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(task(id))
                .as("the counters were cleared: one refusal after the reopening only postpones")
                .isEqualTo("open|notifynl-template-onbekend|0|1");
    }

    @Test
    void aRefusalOfTheSetupIsOneWarningNamingTheClassTheBerichttypeAndTheService() {
        notify.refuse(403, "AuthError", "Invalid token: API key revoked");
        UUID id = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();

        List<LogRecord> warnings = logs.of(SendPipeline.class).stream()
                .filter(record -> record.getLevel() == Level.WARNING)
                .toList();
        assertThat(warnings).hasSize(1);
        assertThat(warnings.getFirst().getMessage())
                .contains("notifynl-sleutel-ingetrokken")
                .contains("berichttype test-bericht of NotifyNL service standaard")
                .contains(query("SELECT trace_id FROM notificatie WHERE id = ?", id)
                        .getFirst())
                .doesNotContain("Invalid token");
        assertThat(logs.of(nl.overheid.moz.nmc.sending.NotifyNlClient.class))
                .noneMatch(record -> record.getLevel().intValue() >= Level.WARNING.intValue());
    }

    /**
     * The send's record is written before the call; a refusal of NotifyNL's setup, or its daily limit, means no
     * e-mail went out, so an ERROR record follows (ARCHITECTURE, the processing log: "the log never claims a processing
     * that did not happen"). It was written for an unreachable NotifyNL only.
     */
    @ParameterizedTest
    @CsvSource({
        "403, AuthError, Invalid token: API key revoked, notifynl-sleutel-ingetrokken",
        "400, BadRequestError, Template not found, notifynl-template-onbekend",
        "429, TooManyRequestsError, Exceeded send limits (email: 50) for today, notifynl-daglimiet"
    })
    void aRefusalThatSentNothingLeavesAnErrorRecordBesideTheSendsRecord(
            int status, String error, String message, String errorClass) {
        moveTo(eightInTheMorning());
        notify.refuse(status, error, message);
        accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();

        List<JsonNode> records =
                notify.server().findAll(postRequestedFor(urlPathEqualTo(PartiesStub.LDV_PATH))).stream()
                        .map(request -> {
                            try {
                                return new com.fasterxml.jackson.databind.ObjectMapper()
                                        .readTree(request.getBodyAsString());
                            } catch (java.io.IOException e) {
                                throw new java.io.UncheckedIOException(e);
                            }
                        })
                        .filter(row -> row.path("name").asText().equals("nmc.notifynl.email-versturen"))
                        .toList();
        assertThat(records).hasSize(2);
        assertThat(records.get(1).path("status").asText()).isEqualTo("ERROR");
        assertThat(records.get(1).path("parent_span_id").asText())
                .isEqualTo(records.get(0).path("span_id").asText());
        assertThat(records.get(1).path("attributes").path("exception.type").asText())
                .isEqualTo(errorClass);
    }

    /**
     * A send whose outcome is unknown (a 5xx, a time-out) may still be committed by NotifyNL: it persists the
     * notification late in a request that may run some 30 s (its gunicorn timeout, its EventletTimeout 504). The
     * lookup by reference that decides whether to POST again came after the backoff's 5 s, and finding nothing there,
     * the NMC sent the e-mail twice. It now waits {@code notifynl.uncertain-send-wait} first; refusals that surely
     * sent nothing keep the normal backoff.
     */
    @Test
    void aSendWhoseOutcomeIsUnknownIsLookedUpOnlyOnceNotifyNlCanHaveFinishedIt() {
        notify.answer(500, "Exception");
        UUID id = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        Instant failedAt = clock.instant();

        assertThat(status(id)).isEqualTo("in-verzending:2");
        assertThat(due(id)).isAfterOrEqualTo(failedAt.plus(Duration.ofSeconds(30)));
        notify.reset();
        clock.advance(Duration.ofSeconds(20));
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(notify.server().findAll(getRequestedFor(urlPathEqualTo("/v2/notifications"))))
                .as("not looked up while NotifyNL may still be running the request")
                .isEmpty();

        clock.advance(Duration.ofSeconds(15));
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(notify.server().findAll(getRequestedFor(urlPathEqualTo("/v2/notifications"))))
                .hasSize(1);
        assertThat(status(id)).isEqualTo("verzonden:3");
    }

    @Test
    void aRefusalOfTheSetupAfterGeldigTotEndsVerlopenNotOnbereikbaar() {
        notify.refuse(400, "BadRequestError", "Template has been deleted");
        UUID id = accept(
                DV_REF,
                Map.of("geldigTot", clock.instant().plus(Duration.ofMinutes(30)).toString()));
        ManualRunner.of(nmc).runWorkersOnce();
        clock.advance(Duration.ofHours(1));
        ManualRunner.of(nmc).runWorkersOnce();
        JsonNode notificatie =
                http.get("/api/nmc/v1/notificaties/" + id, tokenA()).json();
        assertThat(notificatie.path("status").asText()).isEqualTo("verlopen");
        assertThat(notificatie.path("reden").asText()).isEqualTo("verlopen");
    }

    /**
     * Seed: a refused call is repeated and "het wachten wordt alleen door geldig_tot begrensd: verstrijkt dat tijdens
     * het uitstel, dan eindigt de notificatie in verlopen". A send parked for its setup waits for an operator, but
     * not past geldig_tot: the control duty reopens it then, and the send ends it verlopen without calling NotifyNL.
     */
    @Test
    void aSendParkedForItsSetupEndsVerlopenOnceGeldigTotHasPassed() {
        notify.refuse(400, "BadRequestError", "Template not found");
        UUID id = accept(
                DV_REF,
                Map.of("geldigTot", clock.instant().plus(Duration.ofHours(3)).toString()));
        UUID later = accept(
                DV_REF + "-later",
                Map.of("geldigTot", clock.instant().plus(Duration.ofDays(2)).toString()));
        for (int round = 1; round <= 5; round++) {
            ManualRunner.of(nmc).runWorkersOnce();
            clock.advance(Duration.ofMinutes(20));
        }
        assertThat(task(id)).startsWith("mislukt|notifynl-template-onbekend|");
        assertThat(task(later)).startsWith("mislukt|notifynl-template-onbekend|");

        ManualRunner.of(nmc).runDutiesOnce();
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).as("geldig_tot still ahead: parked").isEqualTo("in-verzending:2");

        clock.advance(Duration.ofHours(2));
        ManualRunner.of(nmc).runDutiesOnce();
        ManualRunner.of(nmc).runWorkersOnce();
        JsonNode notificatie =
                http.get("/api/nmc/v1/notificaties/" + id, tokenA()).json();
        assertThat(notificatie.path("status").asText()).isEqualTo("verlopen");
        assertThat(notificatie.path("reden").asText()).isEqualTo("verlopen");
        assertThat(status(later)).as("its geldig_tot is ahead: still parked").isEqualTo("in-verzending:2");
        assertThat(task(later)).startsWith("mislukt|");
        assertThat(notify.server().findAll(postRequestedFor(urlPathEqualTo("/v2/notifications/email"))))
                .as("the expired one was not sent again")
                .hasSize(10);
    }

    @Test
    void missingPersonalisationAsksNotifyNlForTheTemplateAtOnce() {
        notify.refuse(400, "BadRequestError", "Missing personalisation: naam");
        notify.template(TestNmc.TEMPLATE_ID, "naam");
        UUID id = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(task(id)).startsWith("open|notifynl-personalisatie-ontbreekt|");
        assertThat(notify.server().findAll(getRequestedFor(urlPathEqualTo("/v2/template/" + TestNmc.TEMPLATE_ID))))
                .as("the template's placeholders were asked at once")
                .hasSize(1);
        clock.advance(Duration.ofSeconds(10)); // past register.cache-ttl
        Http.Response refused = http.post(
                "/api/nmc/v1/decentraal/notificaties",
                tokenA(),
                Http.json(Map.of("dvRef", "NA-DE-WIJZIGING", "berichttype", TestNmc.BERICHTTYPE, "emailadres", EMAIL)));
        assertThat(refused.status()).as(refused.body()).isEqualTo(400);
        assertThat(refused.json().path("errors").get(0).path("name").asText()).isEqualTo("/personalisation/naam");
    }

    // ---- the address: the only refusal that ends a notification onbereikbaar

    @Test
    void aRefusalOfTheAddressEndsNietBezorgbaarOnbereikbaar() {
        notify.refuseAddress();
        UUID id = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();

        JsonNode notificatie =
                http.get("/api/nmc/v1/notificaties/" + id, tokenA()).json();
        assertThat(notificatie.path("status").asText()).isEqualTo("niet-bezorgbaar");
        assertThat(notificatie.path("reden").asText()).isEqualTo("onbereikbaar");
        assertThat(pogingen(id)).containsExactly("1:permanent-mislukt");
        assertThat(query("SELECT soort FROM taak WHERE notificatie = ?", id)).isEmpty();
    }

    // ---- the rate limit and the clock: the normal backoff

    @Test
    void thePerMinuteRateLimitIsTheNormalBackoffAndClosesNothing() {
        notify.refuse(429, "RateLimitError", "Exceeded rate limit for key type LIVE of 3000 requests per 60 seconds");
        UUID id = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(status(id)).isEqualTo("in-verzending:2");
        assertThat(task(id)).isEqualTo("open|http-429|0|1");
        assertThat(due(id))
                .as("the engine's backoff (backoff-base PT1S), not a day")
                .isBefore(clock.instant().plus(Duration.ofMinutes(1)));
        assertThat(query("SELECT count(*) FROM verzendbudget_sluiting", null)).containsExactly("0");
        for (int round = 0; round < 8; round++) {
            clock.advance(Duration.ofMinutes(1));
            ManualRunner.of(nmc).runWorkersOnce();
        }
        assertThat(task(id)).as("never parked").startsWith("open|http-429|0|");
    }

    @Test
    void aClockNotifyNlRefusesIsTheNormalBackoffNeverParked() {
        notify.refuse(403, "AuthError", "Error: Your system clock must be accurate to within 30 seconds");
        UUID id = accept(DV_REF, Map.of());
        for (int round = 0; round < 8; round++) {
            ManualRunner.of(nmc).runWorkersOnce();
            clock.advance(Duration.ofMinutes(1));
        }
        assertThat(task(id)).startsWith("open|notifynl-klok|0|");
        assertThat(status(id)).isEqualTo("in-verzending:2");
    }

    // ---- the daily limit

    @Test
    void theDailyLimitClosesTheServiceUntilTheWindowHasPassedWithoutBurningAttemptsOrLdvRecords() {
        // the daily limit of service standaard (whose template test-bericht uses) only
        notify.refuse(TestNmc.TEMPLATE_ID, 429, "TooManyRequestsError", "Exceeded send limits (email: 50) for today");
        moveTo(eightInTheMorning()); // the minutes "within the day" below must not pass midnight UTC
        double limited = metric("nmc_notifynl_daily_limit_total", Map.of("service", "standaard"));
        UUID first = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();

        Instant reopens = clock.instant()
                .atZone(ZoneOffset.UTC)
                .toLocalDate()
                .plusDays(1)
                .atStartOfDay(ZoneOffset.UTC)
                .toInstant()
                .plus(Duration.ofMinutes(1));
        assertThat(status(first)).isEqualTo("in-verzending:2");
        assertThat(pogingen(first)).containsExactly("1:gepland");
        assertThat(task(first)).isEqualTo("open|notifynl-daglimiet|0|1");
        assertThat(due(first)).isEqualTo(reopens);
        assertThat(metric("nmc_notifynl_daily_limit_total", Map.of("service", "standaard")))
                .isEqualTo(limited + 1);
        ManualRunner.of(nmc).runDutiesOnce();
        assertThat(scrape().value("nmc_send_budget_closed", Map.of("service", "standaard")))
                .isEqualTo(1);
        assertThat(scrape().value("nmc_send_budget_closed", Map.of("service", "tweede")))
                .isEqualTo(0);

        // more notifications of the closed service, and time passing within the day: nobody knocks
        List<UUID> waiting = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            waiting.add(accept("WACHT-" + i, Map.of()));
        }
        int posts = posts();
        int records = ldvRecords();
        for (int round = 0; round < 20; round++) {
            ManualRunner.of(nmc).runWorkersOnce();
            clock.advance(Duration.ofMinutes(1));
        }
        assertThat(posts()).as("no send while the budget is closed").isEqualTo(posts);
        assertThat(ldvRecords()).as("no LDV record while the budget is closed").isEqualTo(records);
        for (UUID id : waiting) {
            assertThat(status(id)).isEqualTo("aangenomen:1");
            assertThat(pogingen(id)).isEmpty();
        }
        // another service is not held up
        Http.Response other = http.post(
                "/api/nmc/v1/decentraal/notificaties",
                tokenA(),
                Http.json(Map.of("dvRef", "ANDERE-DIENST", "berichttype", TestNmc.BERICHTTYPE_B, "emailadres", EMAIL)));
        UUID otherId = UUID.fromString(other.json().path("id").asText());
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(otherId)).isEqualTo("verzonden:3");

        // the window passes and NotifyNL counts from zero again
        notify.reset();
        moveTo(reopens.plusSeconds(1));
        for (int round = 0; round < 3; round++) {
            ManualRunner.of(nmc).runWorkersOnce();
        }
        assertThat(status(first)).isEqualTo("verzonden:3");
        assertThat(pogingen(first)).containsExactly("1:verzonden");
        for (UUID id : waiting) {
            assertThat(status(id)).isEqualTo("verzonden:3");
        }
    }

    @Test
    void sendsClaimedTogetherHitTheDailyLimitOnceEachAndThenWait() {
        notify.refuse(429, "TooManyRequestsError", "Exceeded send limits (email: 50) for today");
        // the test's 100 minutes must not pass NotifyNL's midnight (UTC), where the limit reopens: it failed when
        // run after 22:20 UTC
        moveTo(eightInTheMorning());
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            ids.add(accept("SAMEN-" + i, Map.of()));
        }
        for (int round = 0; round < 10; round++) {
            ManualRunner.of(nmc).runWorkersOnce();
            clock.advance(Duration.ofMinutes(5));
        }
        assertThat(posts())
                .as("at most one POST per send of the batch claimed before the closure, never a loop")
                .isBetween(1, 12);
        int posts = posts();
        int records = ldvRecords();
        for (int round = 0; round < 10; round++) {
            ManualRunner.of(nmc).runWorkersOnce();
            clock.advance(Duration.ofMinutes(5));
        }
        assertThat(posts()).isEqualTo(posts);
        assertThat(ldvRecords()).isEqualTo(records);
        for (UUID id : ids) {
            assertThat(query("SELECT pogingenteller FROM taak WHERE notificatie = ? AND soort = 'verzenden'", id))
                    .containsExactly("0");
            assertThat(status(id)).isIn("aangenomen:1", "in-verzending:2");
        }
    }

    @Test
    void aDailyLimitJustAfterMidnightWaitsForNotifyNlsMidnightNotADay() {
        notify.refuse(429, "TooManyRequestsError", "Exceeded send limits (email: 50) for today");
        Instant midnight = clock.instant().truncatedTo(ChronoUnit.DAYS).plus(Duration.ofDays(1));
        moveTo(midnight.plusSeconds(20));
        UUID id = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(due(id)).isEqualTo(midnight.plus(Duration.ofMinutes(1)));
    }

    // ---- complaints: counted, never a transition

    @Test
    void aComplaintCallbackIsCountedAndChangesNothing() {
        UUID id = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        receipt(id, 1, "delivered");
        double complaints = metric("nmc_notifynl_complaints_total", Map.of());
        String complaint = Http.json(Map.of(
                "notification_id", notifyId(id, 1),
                "complaint_id", UUID.randomUUID().toString(),
                "reference", pogingId(id, 1).toString(),
                "to", EMAIL,
                "complaint_date", "2026-12-01T10:02:11.000000Z"));

        Http.Response answered = postReceipt(complaint);
        assertThat(answered.status()).as(answered.body()).isEqualTo(200);
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).isEqualTo("bezorgd:4");
        assertThat(query("SELECT count(*) FROM ontvangst", null))
                .as("a complaint is not a receipt")
                .containsExactly("1");
        assertThat(metric("nmc_notifynl_complaints_total", Map.of())).isEqualTo(complaints + 1);
        assertThat(logs.text()).doesNotContain(EMAIL);

        assertThat(http.post("/api/nmc/v1/notifynl-callback", "wrong-token-0123456789", complaint)
                        .status())
                .isEqualTo(401);
        Http.Response invalid = postReceipt(Http.json(Map.of("complaint_id", "not-a-uuid")));
        assertThat(invalid.status()).isEqualTo(400);
        assertThat(invalid.json().path("errors").findValuesAsText("name"))
                .contains("/complaint_id", "/notification_id");
    }

    // ---- helpers

    /** The send task: status | last error | failure counter | postponements. */
    private String task(UUID id) {
        return query(
                        "SELECT status || '|' || coalesce(laatste_fout, '') || '|' || pogingenteller || '|' || "
                                + "coalesce(payload->>'uitstel', '0') FROM taak WHERE notificatie = ? AND soort = 'verzenden'",
                        id)
                .getFirst();
    }

    private Instant due(UUID id) {
        return Instant.parse(query(
                        "SELECT to_char(due AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"') FROM taak "
                                + "WHERE notificatie = ? AND soort = 'verzenden'",
                        id)
                .getFirst());
    }

    /** 08:00 UTC of the next day: a test of the daily limit then has sixteen hours before NotifyNL's midnight. */
    private Instant eightInTheMorning() {
        return clock.instant()
                .truncatedTo(ChronoUnit.DAYS)
                .plus(Duration.ofDays(1))
                .plus(Duration.ofHours(8));
    }

    /** Tries the send {@code tries} times, each time as soon as its backoff lets it. */
    private void triedThroughTheBackoff(UUID id, int tries) {
        for (int round = 1; round <= tries; round++) {
            ManualRunner.of(nmc).runWorkersOnce();
            moveTo(due(id));
        }
    }

    private void moveTo(Instant moment) {
        clock.advance(Duration.between(clock.instant(), moment));
    }

    private int posts() {
        return notify.server()
                .findAll(postRequestedFor(urlPathEqualTo("/v2/notifications/email")))
                .size();
    }

    private int ldvRecords() {
        return notify.server()
                .findAll(postRequestedFor(urlPathEqualTo(PartiesStub.LDV_PATH)))
                .size();
    }

    private PrometheusText scrape() {
        return PrometheusText.parse(
                http.request("GET", "/observe/metrics", null, null, null).body());
    }

    private double metric(String name, String errorClass) {
        return metric(name, Map.of("berichttype", TestNmc.BERICHTTYPE, "service", "standaard", "fout", errorClass));
    }

    private double metric(String name, Map<String, String> labels) {
        return scrape().find(name, labels).stream()
                .mapToDouble(PrometheusText.Sample::value)
                .sum();
    }
}
