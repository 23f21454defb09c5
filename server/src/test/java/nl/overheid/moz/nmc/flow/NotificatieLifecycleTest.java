package nl.overheid.moz.nmc.flow;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import nl.overheid.moz.nmc.engine.TaskKind;
import nl.overheid.moz.nmc.testing.Http;
import nl.overheid.moz.nmc.testing.ManualRunner;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.Test;

/**
 * Whole lifecycles through the real assembly and HTTP, with NotifyNL on WireMock and time in the test's
 * hands: seven-day periods pass in milliseconds. Workers run one claim round at a time.
 */
class NotificatieLifecycleTest extends LifecycleTestBase {

    @Test
    void aDeliveredNotificationBecomesFinalAfterTheMebvPeriodAndTheFeedShowsEveryStep() {
        UUID id = accept(DV_REF, Map.of());
        assertThat(status(id)).isEqualTo("aangenomen:1");

        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).isEqualTo("verzonden:3");

        receipt(id, 1, "delivered");
        assertThat(status(id)).isEqualTo("bezorgd:4");
        JsonNode delivered =
                http.get("/api/nmc/v1/notificaties/" + id, tokenA()).json();
        assertThat(delivered.path("bezorgdOp").asText()).isNotBlank();
        assertThat(delivered.path("pogingen").get(0).path("status").asText()).isEqualTo("bezorgd");

        clock.advance(Duration.ofDays(7));
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id))
                .as("not final before the callback window has passed too")
                .isEqualTo("bezorgd:4");

        clock.advance(Duration.ofMinutes(26));
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).isEqualTo("definitief-bezorgd:5");

        JsonNode page =
                http.get("/api/nmc/v1/notificaties/wijzigingen", tokenA()).json();
        List<String> steps = new ArrayList<>();
        page.path("events").forEach(event -> {
            assertThat(event.path("specversion").asText()).isEqualTo("1.0");
            assertThat(event.path("subject").asText()).isEqualTo(id.toString());
            assertThat(event.path("sequence").isTextual()).isTrue();
            steps.add(event.path("sequence").asText() + ":"
                    + event.path("type").asText().replace("nl.overheid.moz.notificatie.status.", ""));
        });
        assertThat(steps)
                .containsExactly("1:aangenomen", "2:in-verzending", "3:verzonden", "4:bezorgd", "5:definitief-bezorgd");

        String cursor = page.path("cursor").asText();
        assertThat(http.put(
                                "/api/nmc/v1/notificaties/wijzigingen/bevestiging",
                                tokenA(),
                                "{\"cursor\":\"" + cursor + "\"}")
                        .status())
                .isEqualTo(200);
        JsonNode next = http.get("/api/nmc/v1/notificaties/wijzigingen?cursor=" + cursor, tokenA())
                .json();
        assertThat(next.path("events")).isEmpty();
        assertThat(next.path("cursor").asText()).isEqualTo(cursor);
        assertThat(http.get("/api/nmc/v1/notificaties/wijzigingen", tokenB())
                        .json()
                        .path("events"))
                .isEmpty();
    }

    @Test
    void aTemporaryFailureOnTheFirstAttemptIsResentAndTheSecondAttemptDecides() {
        UUID id = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();

        receipt(id, 1, "temporary-failure");
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id))
                .as("the resend is an event although the status stays")
                .isEqualTo("verzonden:4");
        assertThat(pogingen(id)).containsExactly("1:tijdelijk-mislukt", "2:verzonden");

        receipt(id, 2, "temporary-failure");
        assertThat(status(id)).isEqualTo("niet-bezorgbaar:5");
        assertThat(http.get("/api/nmc/v1/notificaties/" + id, tokenA())
                        .json()
                        .path("reden")
                        .asText())
                .isEqualTo("onbereikbaar");
    }

    @Test
    void aPermanentFailureEndsNietBezorgbaarOnbereikbaar() {
        UUID id = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        receipt(id, 1, "permanent-failure");
        assertThat(status(id)).isEqualTo("niet-bezorgbaar:4");
    }

    @Test
    void aFailureWithinTheMebvPeriodUndoesBezorgd() {
        UUID id = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        receipt(id, 1, "delivered");
        clock.advance(Duration.ofDays(1));
        receipt(id, 1, "permanent-failure");
        assertThat(status(id)).isEqualTo("niet-bezorgbaar:5");
        clock.advance(Duration.ofDays(8));
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id))
                .as("the finalise task was completed by the failure")
                .isEqualTo("niet-bezorgbaar:5");
    }

    @Test
    void notifyRefusingTheEmailEndsNietBezorgbaar() {
        notify.refuseAddress();
        UUID id = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).isEqualTo("niet-bezorgbaar:3");
        assertThat(pogingen(id)).containsExactly("1:permanent-mislukt");
    }

    @Test
    void aNotifyOutageCostsNoAttemptAndEndsVerlopenOnlyAfterGeldigTot() {
        notify.answer(503, "ServiceUnavailable");
        UUID id = accept(
                DV_REF,
                Map.of("geldigTot", clock.instant().plus(Duration.ofHours(1)).toString()));
        for (int i = 0; i < 8; i++) {
            ManualRunner.of(nmc).runWorkersOnce();
            clock.advance(Duration.ofSeconds(11));
        }
        assertThat(status(id)).isEqualTo("in-verzending:2");
        assertThat(query("SELECT pogingenteller FROM taak WHERE notificatie = ?", id))
                .containsExactly("0");

        clock.advance(Duration.ofHours(1));
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).isEqualTo("verlopen:3");
        assertThat(query("SELECT soort FROM taak WHERE notificatie = ?", id))
                .as("no task left: its erasure is planned once it is due")
                .isEmpty();
    }

    @Test
    void notifyRecoveringAfterAnOutageStillSendsTheSameAttempt() {
        notify.answer(500, "Exception");
        UUID id = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        notify.reset();
        clock.advance(Duration.ofMinutes(1));
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).isEqualTo("verzonden:3");
        assertThat(pogingen(id)).containsExactly("1:verzonden");
    }

    /**
     * Issue 18 §6: a re-claim of an attempt that may be at NotifyNL (its first POST answered 500) writes its LDV
     * record and asks NotifyNL by reference, each under a lease extended just before it; so does its new POST.
     */
    @Test
    void aReclaimLooksUpByReferenceUnderAFreshLease() {
        List<String> leases = restartWithSlowPartiesThatNoteTheLease();
        notify.answer(500, "Exception");
        UUID id = accept(DV_REF, Map.of());
        leaseSubject = id;
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).isEqualTo("in-verzending:2");
        notify.reset();
        notify.status(null, null, null);
        leases.clear();

        clock.advance(Duration.ofMinutes(1));
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(status(id)).isEqualTo("verzonden:3");
        assertThat(notify.server()
                        .findAll(com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor(
                                com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo("/v2/notifications"))))
                .as("looked up by reference first")
                .hasSize(1);
        assertThat(leases)
                .as("LDV and lookup by reference, then LDV and POST: a full lease (60 s) left at each")
                .containsExactly("60", "60", "60", "60");
    }

    @Test
    void aLostCallbackIsFoundByReconciliation() {
        UUID id = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        notify.status(notifyId(id, 1), "delivered", clock.instant());

        clock.advance(Duration.ofMinutes(59));
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).as("not asked before the first hour").isEqualTo("verzonden:3");

        clock.advance(Duration.ofMinutes(2));
        ManualRunner.of(nmc).runWorkersOnce();
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).isEqualTo("bezorgd:4");
        assertThat(query("SELECT soort FROM taak WHERE notificatie = ?", id)).containsExactly("vaststellen");
    }

    /**
     * The same delivered, arriving while the resend runs: after its start, before its POST (here while the LDV store
     * acknowledges the send's record). The POST's own transaction checked geldig_tot only, so the resend went out to
     * a notification already bezorgd: a second e-mail beyond the documented risk of an expired lease.
     */
    @Test
    void aDeliveredOnTheFirstAttemptWhileTheResendRunsStopsItBeforeItsPost() throws Exception {
        UUID id = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(postReceipt(receiptBody(id, 1, "temporary-failure")).status())
                .isEqualTo(200);
        ManualRunner.of(nmc).runWorkerOnce(nl.overheid.moz.nmc.engine.TaskKind.VERWERKEN);
        java.util.concurrent.atomic.AtomicBoolean armed = new java.util.concurrent.atomic.AtomicBoolean(true);
        // the delivered of attempt 1 comes in and is processed while the resend waits for its send's record
        restartWith(parties -> parties.withLdv(onceAfterRecord(
                parties,
                nl.overheid.moz.nmc.ldv.ProcessingLog.Operation.EMAIL_VERSTUREN,
                armed,
                () -> processedMeanwhile(receiptBody(id, 1, "delivered")))));
        var posts = com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor(
                com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo("/v2/notifications/email"));
        int sent = notify.server().findAll(posts).size();

        clock.advance(Duration.ofMinutes(5));
        ManualRunner.of(nmc).runWorkerOnce(nl.overheid.moz.nmc.engine.TaskKind.VERZENDEN);

        assertThat(armed).as("the resend reached its record").isFalse();
        assertThat(notify.server().findAll(posts)).as("no second e-mail").hasSize(sent);
        assertThat(status(id)).startsWith("bezorgd:");
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(notify.server().findAll(posts)).hasSize(sent);
        assertThat(status(id)).startsWith("bezorgd:");
    }

    @Test
    void aDeliveredOnTheFirstAttemptWhileTheResendWaitsMakesItBezorgdAndNothingIsResent() {
        UUID id = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(postReceipt(receiptBody(id, 1, "temporary-failure")).status())
                .isEqualTo(200);
        ManualRunner.of(nmc).runWorkerOnce(nl.overheid.moz.nmc.engine.TaskKind.VERWERKEN);
        assertThat(query("SELECT count(*) FROM taak WHERE notificatie = ? AND soort = 'verzenden'", id))
                .as("the resend waits")
                .containsExactly("1");

        clock.advance(Duration.ofSeconds(30));
        assertThat(postReceipt(receiptBody(id, 1, "delivered")).status()).isEqualTo(200);
        ManualRunner.of(nmc).runWorkerOnce(nl.overheid.moz.nmc.engine.TaskKind.VERWERKEN);
        assertThat(status(id)).isEqualTo("bezorgd:4");
        int posts = notify.server()
                .findAll(com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor(
                        com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo("/v2/notifications/email")))
                .size();

        ManualRunner.of(nmc).runWorkerOnce(nl.overheid.moz.nmc.engine.TaskKind.VERZENDEN);
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(notify.server()
                        .findAll(com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor(
                                com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo(
                                        "/v2/notifications/email"))))
                .as("the resend completed at its start without sending")
                .hasSize(posts);
        assertThat(status(id)).isEqualTo("bezorgd:4");
        assertThat(pogingen(id)).containsExactly("1:bezorgd");
    }

    @Test
    void aDeliveredOnAttemptOneWhileAttemptTwoRunsLeavesTheReconciliationOfAttemptTwo() {
        UUID id = resentAfterATemporaryFailure();
        UUID second = pogingId(id, 2);

        clock.advance(Duration.ofSeconds(30));
        receipt(id, 1, "delivered");

        assertThat(status(id)).isEqualTo("bezorgd:5");
        assertThat(query("SELECT poging FROM taak WHERE notificatie = ? AND soort = 'reconcilieren'", id))
                .as("attempt 2 still runs and is still looked after")
                .containsExactly(second.toString());
    }

    /**
     * Attempt 1 was POSTed twice (a duplicate NotifyNL id): one e-mail failed temporarily and the resend was made,
     * then the duplicate was delivered (bezorgd on attempt 1) and the resend's failure only recorded. When the
     * duplicate bounces within the MEBV period, bezorgd is undone and a resend planned, but none is left: the send
     * task ends the notification as the resend's failure would have. It used to find nothing to send and complete,
     * and the control duty planned it again every round, for ever.
     */
    @Test
    void aBounceOnTheDeliveredAttemptAfterTheResendHasFailedEndsTheNotification() {
        UUID id = resentAfterATemporaryFailure();
        String duplicate = UUID.randomUUID().toString();
        clock.advance(Duration.ofSeconds(30));
        receipt(id, 1, "delivered", duplicate);
        assertThat(status(id)).isEqualTo("bezorgd:5");
        clock.advance(Duration.ofSeconds(30));
        receipt(id, 2, "temporary-failure");
        assertThat(status(id)).as("bezorgd rests on attempt 1: recorded only").isEqualTo("bezorgd:5");
        assertThat(pogingen(id)).containsExactly("1:bezorgd", "2:tijdelijk-mislukt");

        clock.advance(Duration.ofHours(1));
        receipt(id, 1, "temporary-failure", duplicate);
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id))
                .as("the bounce undid bezorgd, the resend's failure ends it")
                .isEqualTo("niet-bezorgbaar:7");
        assertThat(http.get("/api/nmc/v1/notificaties/" + id, tokenA())
                        .json()
                        .path("reden")
                        .asText())
                .isEqualTo("onbereikbaar");
        ManualRunner.of(nmc).runDutiesOnce();
        assertThat(query("SELECT soort FROM taak WHERE notificatie = ? AND soort <> 'wissen'", id))
                .as("nothing left to do")
                .isEmpty();
    }

    /**
     * Issue 18 §2: the delivery proof is the first delivered. A later delivered under a duplicate NotifyNL id of
     * the same attempt is recorded (the receipt, the duplicate id) and moves nothing: not bezorgdOp, not the
     * attempt's afgerondOp, not the finalisation.
     */
    @Test
    void aSecondDeliveredUnderADuplicateIdMovesNeitherTheProofNorTheFinalisation() {
        UUID id = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        java.time.Instant t0 = clock.instant();
        receipt(id, 1, "delivered");
        JsonNode first = notificatie(id);
        assertThat(java.time.Instant.parse(first.path("bezorgdOp").asText())).isEqualTo(t0);

        clock.advance(Duration.ofDays(2));
        String duplicate = UUID.randomUUID().toString();
        receipt(id, 1, "delivered", duplicate);

        JsonNode after = notificatie(id);
        assertThat(status(id)).isEqualTo("bezorgd:4");
        assertThat(java.time.Instant.parse(after.path("bezorgdOp").asText()))
                .as("the proof is the first delivery")
                .isEqualTo(t0);
        assertThat(after.path("pogingen").get(0).path("afgerondOp").asText())
                .isEqualTo(first.path("pogingen").get(0).path("afgerondOp").asText());
        assertThat(query("SELECT array_to_string(duplicaat_notify_ids, ',') FROM poging WHERE notificatie = ?", id))
                .as("the repeat is recorded: its duplicate id")
                .containsExactly(duplicate);
        assertThat(query(
                        "SELECT due = CAST('" + t0.plus(Duration.ofDays(7).plusMinutes(25))
                                + "' AS timestamptz) FROM taak WHERE notificatie = ? AND soort = 'vaststellen'",
                        id))
                .as("the finalise task stays due at the first delivery + MEBV period + callback window")
                .containsExactly("t");

        clock.advance(
                Duration.between(clock.instant(), t0.plus(Duration.ofDays(7).plusMinutes(26))));
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).isEqualTo("definitief-bezorgd:5");
    }

    /**
     * Issue 18 §3 ("op de poging vastgelegd"): a delivered on attempt 2 while the notification rests on attempt 1's
     * delivery changes nothing for the notification, but is recorded on attempt 2 (status and time), ends its
     * reconciliation, and the status answer shows it.
     */
    @Test
    void aDeliveredOnAttemptTwoWhileBezorgdRestsOnAttemptOneIsRecordedAndShown() {
        UUID id = bezorgdOnAttemptOneWhileAttemptTwoRuns();
        java.time.Instant proof =
                java.time.Instant.parse(notificatie(id).path("bezorgdOp").asText());

        clock.advance(Duration.ofSeconds(30));
        java.time.Instant second = clock.instant();
        receipt(id, 2, "delivered");

        assertThat(status(id)).isEqualTo("bezorgd:5");
        assertThat(pogingen(id)).containsExactly("1:bezorgd", "2:bezorgd");
        assertThat(query("SELECT count(*) FROM taak WHERE notificatie = ? AND soort = 'reconcilieren'", id))
                .as("attempt 2's outcome is known: its reconciliation ended")
                .containsExactly("0");
        JsonNode answer = notificatie(id);
        assertThat(java.time.Instant.parse(answer.path("bezorgdOp").asText())).isEqualTo(proof);
        assertThat(answer.path("pogingen").get(0).path("bezorgbewijs").asBoolean())
                .isTrue();
        assertThat(answer.path("pogingen").get(1).path("bezorgbewijs").asBoolean())
                .isFalse();
        assertThat(answer.path("pogingen").get(1).path("status").asText()).isEqualTo("bezorgd");
        assertThat(java.time.Instant.parse(
                        answer.path("pogingen").get(1).path("afgerondOp").asText()))
                .isEqualTo(second);
    }

    /**
     * Issue 18 §3, the other side: a failure within the MEBV period on the attempt the proof rests on, while the
     * other attempt has a recorded delivery, keeps the notification bezorgd on that delivery (no event), and the
     * proof and the finalise task follow it.
     */
    @Test
    void aFailureWithinThePeriodOnTheBasisWhileTheOtherAttemptIsDeliveredKeepsItBezorgd() {
        UUID id = bezorgdOnAttemptOneWhileAttemptTwoRuns();
        clock.advance(Duration.ofSeconds(30));
        java.time.Instant second = clock.instant();
        receipt(id, 2, "delivered");

        clock.advance(Duration.ofMinutes(1));
        receipt(id, 1, "temporary-failure", UUID.randomUUID().toString());

        assertThat(status(id)).as("no event: it stays bezorgd").isEqualTo("bezorgd:5");
        assertThat(pogingen(id)).containsExactly("1:tijdelijk-mislukt", "2:bezorgd");
        JsonNode answer = notificatie(id);
        assertThat(java.time.Instant.parse(answer.path("bezorgdOp").asText()))
                .as("bezorgd now rests on attempt 2's delivery")
                .isEqualTo(second);
        assertThat(answer.path("pogingen").get(0).path("bezorgbewijs").asBoolean())
                .isFalse();
        assertThat(answer.path("pogingen").get(1).path("bezorgbewijs").asBoolean())
                .isTrue();
        assertThat(query(
                        "SELECT due = CAST('" + second.plus(Duration.ofDays(7).plusMinutes(25))
                                + "' AS timestamptz) FROM taak WHERE notificatie = ? AND soort = 'vaststellen'",
                        id))
                .containsExactly("t");
        assertThat(query("SELECT count(*) FROM taak WHERE notificatie = ? AND soort = 'verzenden'", id))
                .as("no resend")
                .containsExactly("0");

        clock.advance(
                Duration.between(clock.instant(), second.plus(Duration.ofDays(7).plusMinutes(26))));
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).isEqualTo("definitief-bezorgd:6");
    }

    /**
     * Issue 18 §3: a late temporary-failure on a bezorgstatus-onbekend attempt is recorded on it, and a late
     * permanent-failure still ends the notification, from whatever attempt (accepted consequence, design §7.3).
     */
    @Test
    void aLateTemporaryFailureOnBezorgstatusOnbekendIsRecordedAndALaterBounceStillEndsIt() {
        UUID id = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        notify.status(null, null, null);
        clock.advance(Duration.ofHours(2));
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).isEqualTo("bezorgstatus-onbekend:4");

        receipt(id, 1, "temporary-failure");
        assertThat(pogingen(id)).as("recorded on its attempt").containsExactly("1:tijdelijk-mislukt");
        assertThat(status(id)).isEqualTo("bezorgstatus-onbekend:4");

        clock.advance(Duration.ofMinutes(1));
        receipt(id, 1, "permanent-failure", UUID.randomUUID().toString());
        assertThat(status(id)).isEqualTo("niet-bezorgbaar:5");
        assertThat(pogingen(id)).containsExactly("1:permanent-mislukt");
    }

    /** Attempt 1 failed temporarily, attempt 2 is sent, then attempt 1's late delivered makes it bezorgd (5). */
    private UUID bezorgdOnAttemptOneWhileAttemptTwoRuns() {
        UUID id = resentAfterATemporaryFailure();
        clock.advance(Duration.ofSeconds(30));
        receipt(id, 1, "delivered");
        assertThat(status(id)).isEqualTo("bezorgd:5");
        return id;
    }

    private JsonNode notificatie(UUID id) {
        return http.get("/api/nmc/v1/notificaties/" + id, tokenA()).json();
    }

    @Test
    void aDeliveredUnderADuplicateNotifyNlIdMakesTheNotificationBezorgd() {
        UUID id = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        String duplicate = UUID.randomUUID().toString();

        receipt(id, 1, "delivered", duplicate);

        assertThat(status(id)).isEqualTo("bezorgd:4");
        assertThat(query("SELECT array_to_string(duplicaat_notify_ids, ',') FROM poging WHERE notificatie = ?", id))
                .containsExactly(duplicate);
    }

    @Test
    void reconciliationAsksNotifyNlForEveryIdOfTheAttemptAndADeliveredDuplicateCounts() {
        UUID id = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        UUID duplicate = UUID.randomUUID();
        execute(
                "UPDATE poging SET duplicaat_notify_ids = ARRAY[CAST('" + duplicate + "' AS uuid)] "
                        + "WHERE notificatie = ?",
                id);
        notify.status(notifyId(id, 1), "sending", null);
        notify.status(duplicate.toString(), "delivered", clock.instant());

        clock.advance(Duration.ofMinutes(61));
        ManualRunner.of(nmc).runWorkersOnce();
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(status(id)).isEqualTo("bezorgd:4");
        for (String notifyId : List.of(notifyId(id, 1), duplicate.toString())) {
            assertThat(notify.server()
                            .findAll(com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor(
                                    com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo(
                                            "/v2/notifications/" + notifyId))))
                    .as("asked by " + notifyId)
                    .hasSize(1);
        }
    }

    /**
     * Issue 18 §10: an attempt POSTed twice (its first POST answered 500, yet NotifyNL made the e-mail; the re-claim's
     * lookup by reference did not see it yet and POSTed again) has an e-mail whose id the NMC never learnt. When
     * that one's callback is lost, reconciliation still finds it: for an attempt POSTed more than once it also asks
     * by reference, learns every id sent under it, and records the delivered duplicate.
     */
    @Test
    void aDuplicateWhoseCallbackWasLostIsFoundByReferenceWhenTheAttemptWasPostedTwice() {
        notify.answer(500, "Exception");
        UUID id = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).isEqualTo("in-verzending:2");
        UUID poging = pogingId(id, 1);
        notify.reset();
        notify.referenced(poging, List.of());
        clock.advance(Duration.ofMinutes(1));
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).isEqualTo("verzonden:3");
        assertThat(query("SELECT verzoeken FROM poging WHERE id = ?", poging)).containsExactly("2");

        String own = notifyId(id, 1);
        String lost = UUID.randomUUID().toString();
        notify.status(own, "sending", null);
        notify.referenced(
                poging,
                List.of(
                        new nl.overheid.moz.nmc.testing.PartiesStub.Listed(own, "sending", null),
                        new nl.overheid.moz.nmc.testing.PartiesStub.Listed(lost, "delivered", clock.instant())));
        notify.server().resetRequests();
        clock.advance(Duration.ofMinutes(61));
        ManualRunner.of(nmc).runWorkersOnce();
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(status(id)).isEqualTo("bezorgd:4");
        assertThat(query("SELECT array_to_string(duplicaat_notify_ids, ',') FROM poging WHERE id = ?", poging))
                .containsExactly(lost);
        assertThat(notify.server()
                        .findAll(com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor(
                                        com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo(
                                                "/v2/notifications"))
                                .withQueryParam(
                                        "reference",
                                        com.github.tomakehurst.wiremock.client.WireMock.equalTo(poging.toString()))))
                .as("asked by reference once")
                .hasSize(1);
    }

    @Test
    void anAttemptNotifyNlDoesNotKnowEndsBezorgstatusOnbekendAndALateReceiptCorrectsIt() {
        UUID id = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        notify.status(null, null, null);
        clock.advance(Duration.ofHours(2));
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).isEqualTo("bezorgstatus-onbekend:4");
        assertThat(pogingen(id)).containsExactly("1:onbekend");
        assertThat(http.get("/api/nmc/v1/notificaties/" + id, tokenA())
                        .json()
                        .path("definitiefOp")
                        .isTextual())
                .as("terminal")
                .isTrue();

        receipt(id, 1, "delivered");
        assertThat(status(id)).isEqualTo("bezorgd:5");
        assertThat(http.get("/api/nmc/v1/notificaties/" + id, tokenA())
                        .json()
                        .path("definitiefOp")
                        .isTextual())
                .as("reopened: not terminal any more")
                .isFalse();
    }

    @Test
    void anAttemptStillSendingIsAskedAgainUntilNotifyNlsRetentionEnds() {
        UUID id = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        notify.status(notifyId(id, 1), "sending", null);
        for (int hour = 0; hour < 24 * 7 - 1; hour++) {
            clock.advance(Duration.ofHours(1));
            ManualRunner.of(nmc).runWorkersOnce();
        }
        assertThat(status(id)).isEqualTo("verzonden:3");
        assertThat(notify.server()
                        .findAll(com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor(
                                com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo(
                                        "/v2/notifications/" + notifyId(id, 1)))))
                .as("asked by its NotifyNL id after 1 h, 6 h, 24 h and then daily")
                .hasSize(3 + 5);
        clock.advance(Duration.ofHours(2));
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).isEqualTo("bezorgstatus-onbekend:4");
    }

    /**
     * Seed: the retention's end closes the inquiry only "zonder uitkomst". An outcome the last query finds (here a
     * temporary failure, which plans a resend) decides, as a callback would: no bezorgstatus-onbekend in between.
     */
    @Test
    void anOutcomeFoundByTheLastQueryDecidesAlthoughNotifyNlsRetentionHasEnded() {
        UUID id = stillSendingAnHourBeforeNotifyNlsRetentionEnds();

        notify.status(notifyId(id, 1), "temporary-failure", clock.instant());
        clock.advance(Duration.ofHours(2));
        ManualRunner.of(nmc).runWorkerOnce(TaskKind.RECONCILIEREN);
        assertThat(status(id)).as("the outcome waits for its receipt task").isEqualTo("verzonden:3");
        ManualRunner.of(nmc).runWorkersOnce();
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id))
                .as("the resend is an event although the status stays")
                .isEqualTo("verzonden:4");
        assertThat(pogingen(id)).containsExactly("1:tijdelijk-mislukt", "2:verzonden");
        assertThat(query("SELECT van || '>' || naar FROM event WHERE notificatie = ? ORDER BY volgnummer", id))
                .doesNotContain("verzonden>bezorgstatus-onbekend");
    }

    /** A notification sent and still sending at NotifyNL, asked by reconciliation up to an hour before the end. */
    private UUID stillSendingAnHourBeforeNotifyNlsRetentionEnds() {
        UUID id = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        notify.status(notifyId(id, 1), "sending", null);
        clock.advance(Duration.ofDays(6).plusHours(23));
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).isEqualTo("verzonden:3");
        return id;
    }

    /**
     * NotifyNL unreachable at the last query and still a step later: no outcome came, and none can come any more, so
     * the inquiry ends. One failed query at the retention's end is asked again.
     */
    @Test
    void aNotifyOutagePastItsRetentionEndsTheInquiryBezorgstatusOnbekend() {
        UUID id = stillSendingAnHourBeforeNotifyNlsRetentionEnds();
        notify.server()
                .stubFor(com.github.tomakehurst.wiremock.client.WireMock.get(
                                com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching("/v2/notifications.*"))
                        .atPriority(0)
                        .willReturn(com.github.tomakehurst.wiremock.client.WireMock.aResponse()
                                .withStatus(503)));
        clock.advance(Duration.ofHours(1));
        assertThat(ManualRunner.of(nmc).runWorkerOnce(TaskKind.RECONCILIEREN))
                .as("the last query, at the retention's end")
                .isEqualTo(1);
        assertThat(status(id)).as("one failed query: asked again a step later").isEqualTo("verzonden:3");

        clock.advance(Duration.ofMinutes(59));
        assertThat(ManualRunner.of(nmc).runWorkerOnce(TaskKind.RECONCILIEREN)).isZero();
        clock.advance(Duration.ofMinutes(1));
        assertThat(ManualRunner.of(nmc).runWorkerOnce(TaskKind.RECONCILIEREN)).isEqualTo(1);
        assertThat(status(id)).isEqualTo("bezorgstatus-onbekend:4");
        assertThat(pogingen(id)).containsExactly("1:onbekend");
    }

    @Test
    void aNotificationWhoseTaskWasLostIsPickedUpByTheControlDuty() {
        UUID id = accept(DV_REF, Map.of());
        execute("DELETE FROM taak WHERE notificatie = ?", id);
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).isEqualTo("aangenomen:1");

        assertThat(ManualRunner.of(nmc).runDutiesOnce()).isEqualTo(1);
        assertThat(ManualRunner.of(nmc).runDutiesOnce())
                .as("planning is idempotent")
                .isZero();
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).isEqualTo("verzonden:3");

        receipt(id, 1, "delivered");
        execute("DELETE FROM taak WHERE notificatie = ?", id);
        assertThat(ManualRunner.of(nmc).runDutiesOnce()).isEqualTo(1);
        clock.advance(Duration.ofDays(8));
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).isEqualTo("definitief-bezorgd:5");
    }

    @Test
    void theQuotaOfADvIsEnforcedAtAcceptanceWithRetryAfter() {
        String token = IAM.token(TestNmc.DV_SMALL_QUOTA, clock.instant());
        String body = Http.json(Map.of("dvRef", "Q-1", "berichttype", TestNmc.BERICHTTYPE, "emailadres", EMAIL));
        assertThat(http.post("/api/nmc/v1/decentraal/notificaties", token, body).status())
                .isEqualTo(202);
        assertThat(http.post("/api/nmc/v1/decentraal/notificaties", token, body.replace("Q-1", "Q-2"))
                        .status())
                .isEqualTo(202);
        assertThat(http.post("/api/nmc/v1/decentraal/notificaties", token, body).status())
                .as("a repeat of an accepted request is not a new acceptance")
                .isEqualTo(202);

        Http.Response refused = http.post("/api/nmc/v1/decentraal/notificaties", token, body.replace("Q-1", "Q-3"));
        assertThat(refused.status()).isEqualTo(429);
        assertThat(refused.contentType()).startsWith("application/problem+json");
        assertThat(refused.header("Retry-After"))
                .hasValueSatisfying(value -> assertThat(Integer.parseInt(value)).isBetween(1, 61));
        assertThat(query("SELECT count(*) FROM notificatie", null)).containsExactly("2");

        clock.advance(Duration.ofSeconds(61));
        assertThat(http.post(
                                "/api/nmc/v1/decentraal/notificaties",
                                IAM.token(TestNmc.DV_SMALL_QUOTA, clock.instant()),
                                body.replace("Q-1", "Q-3"))
                        .status())
                .isEqualTo(202);
    }

    /**
     * feed.default-limit is the page size of a read without limit, and feed.max-limit caps a larger limit (the
     * contract: "the server may cap it lower"); only one outside the contract's 1–1000 is a 400. The generated
     * service filled in the contract's default 100, so default-limit never applied, and a max-limit below 100 made
     * every read without limit a 400.
     */
    @Test
    void theFeedPagesByTheConfiguredDefaultAndCapsALargerLimitAtTheConfiguredMaximum() {
        restartWithConfig("feed:\n  default-limit: 2\n  max-limit: 3\n");
        accept(DV_REF, Map.of());
        accept(DV_REF + "-2", Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        String feed = "/api/nmc/v1/notificaties/wijzigingen";
        assertThat(http.get(feed, tokenA()).json().path("events").size()).isEqualTo(2);
        assertThat(http.get(feed + "?limit=1", tokenA()).json().path("events").size())
                .isEqualTo(1);
        assertThat(http.get(feed + "?limit=3", tokenA()).json().path("events").size())
                .isEqualTo(3);
        assertThat(http.get(feed + "?limit=1000", tokenA())
                        .json()
                        .path("events")
                        .size())
                .isEqualTo(3);
        for (String refused : new String[] {"0", "1001", "-1"}) {
            Http.Response answer = http.get(feed + "?limit=" + refused, tokenA());
            assertThat(answer.status()).as(refused).isEqualTo(400);
            assertThat(answer.json().path("errors").get(0).path("name").asText())
                    .isEqualTo("limit");
        }
    }

    @Test
    void aCursorOfAnotherEpochOrOlderThanTheMaxCursorAgeIsGone() {
        accept(DV_REF, Map.of());
        String cursor = http.get("/api/nmc/v1/notificaties/wijzigingen", tokenA())
                .json()
                .path("cursor")
                .asText();
        var codec = new nl.overheid.moz.nmc.feed.CursorCodec(TestNmc.CURSOR_KEY);
        nl.overheid.moz.nmc.feed.Cursor decoded = codec.decode(cursor).orElseThrow();
        String otherEpoch = codec.encode(new nl.overheid.moz.nmc.feed.Cursor(
                decoded.epoch() + 1, decoded.transactionId(), decoded.eventId(), decoded.issuedAt()));

        Http.Response gone = http.get("/api/nmc/v1/notificaties/wijzigingen?cursor=" + otherEpoch, tokenA());
        assertThat(gone.status()).isEqualTo(410);
        assertThat(gone.contentType()).startsWith("application/problem+json");
        assertThat(http.get("/api/nmc/v1/notificaties/wijzigingen?cursor=" + cursor, tokenB())
                        .status())
                .as("another DV's cursor points at no event of the caller")
                .isEqualTo(410);
        String olderFormat = java.util.Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString(("c2.1." + decoded.transactionId() + "." + decoded.eventId() + "."
                                + decoded.issuedAt().getEpochSecond())
                        .getBytes());
        assertThat(http.get("/api/nmc/v1/notificaties/wijzigingen?cursor=" + olderFormat, tokenA())
                        .status())
                .as("a cursor of the NMC's older format is a lost position, not a client error")
                .isEqualTo(410);

        clock.advance(Duration.ofDays(20));
        String polled = http.get("/api/nmc/v1/notificaties/wijzigingen?cursor=" + cursor, tokenA())
                .json()
                .path("cursor")
                .asText();
        clock.advance(Duration.ofDays(11));
        assertThat(http.get("/api/nmc/v1/notificaties/wijzigingen?cursor=" + polled, tokenA())
                        .status())
                .as("a DV that keeps polling stays current, however quiet its feed")
                .isEqualTo(200);
        assertThat(http.get("/api/nmc/v1/notificaties/wijzigingen?cursor=" + cursor, tokenA())
                        .status())
                .isEqualTo(410);
        assertThat(http.put(
                                "/api/nmc/v1/notificaties/wijzigingen/bevestiging",
                                tokenA(),
                                "{\"cursor\":\"" + cursor + "\"}")
                        .status())
                .isEqualTo(410);
        assertThat(http.get("/api/nmc/v1/notificaties/wijzigingen", tokenA())
                        .json()
                        .path("events"))
                .as("without a cursor the DV restarts from the oldest event")
                .hasSize(1);
    }

    /** NotifyNL that holds every send until the test releases it, and then accepts it under one id. */
    private static final class GatedNotifyNl implements nl.overheid.moz.nmc.sending.NotifyNl {
        final java.util.concurrent.CountDownLatch entered = new java.util.concurrent.CountDownLatch(1);
        final java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        final UUID notifyId = UUID.randomUUID();

        @Override
        public SendResult sendEmail(
                UUID templateId,
                String emailAddress,
                Map<String, String> personalisation,
                UUID reference,
                nl.overheid.moz.nmc.trace.Span span) {
            entered.countDown();
            try {
                release.await(20, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new SendResult.Accepted(notifyId);
        }

        @Override
        public ReferenceLookup findAllByReference(UUID reference, nl.overheid.moz.nmc.trace.Span span) {
            return new ReferenceLookup.Found(List.of());
        }

        @Override
        public Lookup findById(UUID notifyId, nl.overheid.moz.nmc.trace.Span span) {
            return new Lookup.NotFound();
        }

        @Override
        public TemplateLookup template(UUID templateId) {
            return new TemplateLookup.Found(List.of(), 1);
        }
    }

    private GatedNotifyNl restartWithGatedNotifyNl() {
        GatedNotifyNl gated = new GatedNotifyNl();
        restartWith(parties -> parties.withNotifyNl(gated));
        return gated;
    }

    /** How many transactions wrote the events verzonden (3) and bezorgd (4). */
    private static String transactionsOfSentAndDelivered(UUID id) {
        return query(
                        "SELECT count(DISTINCT transactie_id) FROM event WHERE notificatie = ? AND volgnummer IN (3, 4)",
                        id)
                .getFirst();
    }

    @Test
    void aReceiptThatOvertakesTheSendCommitActsOnBehalfOfTheWorkerWhoseLateCommitWritesNothing() throws Exception {
        GatedNotifyNl gated = restartWithGatedNotifyNl();
        UUID id = accept(DV_REF, Map.of());
        Thread sender = Thread.ofVirtual().start(ManualRunner.of(nmc)::runWorkersOnce);
        assertThat(gated.entered.await(10, java.util.concurrent.TimeUnit.SECONDS))
                .as("the POST is in flight")
                .isTrue();
        UUID pogingRef = pogingId(id, 1);

        assertThat(postReceipt(Http.json(Map.of(
                                "id",
                                gated.notifyId.toString(),
                                "reference",
                                pogingRef.toString(),
                                "status",
                                "delivered",
                                "completed_at",
                                clock.instant().toString(),
                                "notification_type",
                                "email")))
                        .status())
                .isEqualTo(200);
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).isEqualTo("bezorgd:4");
        assertThat(transactionsOfSentAndDelivered(id))
                .as("the receipt task wrote in-verzending -> verzonden itself, with bezorgd")
                .isEqualTo("1");

        gated.release.countDown();
        sender.join(20_000);
        assertThat(sender.isAlive()).as("the send's commit ran").isFalse();
        assertThat(status(id))
                .as("the send's late commit is refused: its task is gone")
                .isEqualTo("bezorgd:4");
        assertThat(query(
                        "SELECT notify_id || ' ' || status || ' ' || cardinality(duplicaat_notify_ids) FROM poging "
                                + "WHERE notificatie = ?",
                        id))
                .containsExactly(gated.notifyId + " bezorgd 0");
        assertThat(query("SELECT soort FROM taak WHERE notificatie = ?", id)).containsExactly("vaststellen");
    }

    @Test
    void aReceiptAfterTheSendCommitIsProcessedInItsOwnTransaction() throws Exception {
        GatedNotifyNl gated = restartWithGatedNotifyNl();
        gated.release.countDown();
        UUID id = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).isEqualTo("verzonden:3");

        assertThat(postReceipt(Http.json(Map.of(
                                "id",
                                gated.notifyId.toString(),
                                "reference",
                                pogingId(id, 1).toString(),
                                "status",
                                "delivered",
                                "completed_at",
                                clock.instant().toString(),
                                "notification_type",
                                "email")))
                        .status())
                .isEqualTo(200);
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).isEqualTo("bezorgd:4");
        assertThat(transactionsOfSentAndDelivered(id))
                .as("the send commit wrote verzonden, the receipt bezorgd")
                .isEqualTo("2");
        assertThat(query(
                        "SELECT notify_id || ' ' || status || ' ' || cardinality(duplicaat_notify_ids) FROM poging "
                                + "WHERE notificatie = ?",
                        id))
                .containsExactly(gated.notifyId + " bezorgd 0");
        assertThat(query("SELECT soort FROM taak WHERE notificatie = ?", id)).containsExactly("vaststellen");
    }

    @Test
    void aSendPostponedByAnOutageDoesNotStartAfterGeldigTotWhenNotifyNlIsBack() {
        notify.answer(503, "ServiceUnavailable");
        UUID id = accept(
                DV_REF,
                Map.of("geldigTot", clock.instant().plus(Duration.ofMinutes(10)).toString()));
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).isEqualTo("in-verzending:2");
        var posts = com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor(
                com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo("/v2/notifications/email"));
        int sent = notify.server().findAll(posts).size();

        notify.reset();
        clock.advance(Duration.ofMinutes(11));
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).isEqualTo("verlopen:3");
        assertThat(notify.server().findAll(posts))
                .as("no POST after geldig_tot (a 5xx may have arrived, so it " + "was looked up by reference first)")
                .hasSize(sent);
    }

    /**
     * Another DV's cancel neither waits for nor takes the notification's lock: it answers 404 at once while the
     * owner's transaction holds the row (before, it waited for the lock and so could hold another DV's row and time
     * its existence).
     */
    @Test
    void aCancelOfAnotherDvsNotificationNeitherWaitsForNorTakesItsLock() throws Exception {
        UUID id = accept(DV_REF, Map.of());
        nl.overheid.moz.nmc.db.Database database = DB.shared();
        var held = new java.util.concurrent.CountDownLatch(1);
        var release = new java.util.concurrent.CountDownLatch(1);
        Thread owner = Thread.ofVirtual()
                .start(() -> database.inTransactionDo(tx -> {
                    tx.createQuery("SELECT id FROM notificatie WHERE id = '" + id + "' FOR UPDATE")
                            .execute()
                            .count();
                    held.countDown();
                    try {
                        release.await(20, java.util.concurrent.TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }));
        held.await();
        long started = System.nanoTime();
        Http.Response answer = http.delete("/api/nmc/v1/notificaties/" + id, tokenB());
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        release.countDown();
        owner.join(20_000);

        assertThat(answer.status()).isEqualTo(404);
        assertThat(took).as("no wait for another DV's lock").isLessThan(Duration.ofSeconds(2));
        assertThat(status(id)).isEqualTo("aangenomen:1");
    }

    @Test
    void aCancelThatWinsTheNotificationLockFromAClaimedSendStopsIt() throws Exception {
        UUID id = accept(DV_REF, Map.of());
        nl.overheid.moz.nmc.db.Database database = DB.shared();
        nl.overheid.moz.nmc.lifecycle.Transitions transitions = new nl.overheid.moz.nmc.lifecycle.Transitions(
                new nl.overheid.moz.nmc.lifecycle.NotificatieRepository(), clock);
        var notificatieTasks = new nl.overheid.moz.nmc.planning.NotificatieTasks(
                new nl.overheid.moz.nmc.engine.TaskRepository(),
                transitions,
                new nl.overheid.moz.nmc.register.Register(database));
        var locked = new java.util.concurrent.CountDownLatch(1);
        var proceed = new java.util.concurrent.CountDownLatch(1);
        // A cancel holds the notification's lock ...
        Thread cancel = Thread.ofVirtual()
                .start(() -> database.inTransactionDo(tx -> {
                    var n = transitions.lock(tx, id).orElseThrow();
                    locked.countDown();
                    try {
                        proceed.await(20, java.util.concurrent.TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    notificatieTasks.completeAll(
                            tx,
                            transitions.apply(
                                    tx,
                                    n,
                                    nl.overheid.moz.nmc.lifecycle.NotificatieStatus.GEANNULEERD,
                                    nl.overheid.moz.nmc.lifecycle.Reden.GEANNULEERD));
                }));
        locked.await();
        // ... while the send task is claimed (the claim never touches the notification) and its start waits.
        Thread sender = Thread.ofVirtual().start(ManualRunner.of(nmc)::runWorkersOnce);
        for (int i = 0;
                i < 200
                        && !query("SELECT claim_epoch FROM taak WHERE notificatie = ?", id)
                                .equals(List.of("1"));
                i++) {
            Thread.sleep(25);
        }
        assertThat(query("SELECT claim_epoch FROM taak WHERE notificatie = ?", id))
                .containsExactly("1");
        proceed.countDown();
        cancel.join(20_000);
        sender.join(20_000);
        assertThat(sender.isAlive()).isFalse();
        assertThat(status(id)).isEqualTo("geannuleerd:2");
        assertThat(notify.server().getAllServeEvents()).as("nothing was sent").isEmpty();
        assertThat(query("SELECT count(*) FROM poging WHERE notificatie = ?", id))
                .containsExactly("0");
    }

    @Test
    void anUncertainSendPastGeldigTotIsLookedUpNotEndedBlindly() {
        notify.breakConnections();
        UUID id = accept(
                DV_REF,
                Map.of("geldigTot", clock.instant().plus(Duration.ofHours(1)).toString()));
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).isEqualTo("in-verzending:2");

        clock.advance(Duration.ofHours(2));
        String notifyId = UUID.randomUUID().toString();
        notify.status(notifyId, "sending", null);
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id))
                .as("NotifyNL had it after all: the attempt runs to its outcome")
                .isEqualTo("verzonden:3");
        assertThat(query("SELECT notify_id FROM poging WHERE notificatie = ?", id))
                .containsExactly(notifyId);
    }

    @Test
    void anUncertainSendThatNotifyNlDoesNotKnowEndsVerlopenAfterGeldigTot() {
        notify.breakConnections();
        notify.status(null, null, null);
        UUID id = accept(
                DV_REF,
                Map.of("geldigTot", clock.instant().plus(Duration.ofHours(1)).toString()));
        ManualRunner.of(nmc).runWorkersOnce();
        clock.advance(Duration.ofHours(2));
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).isEqualTo("verlopen:3");
    }

    @Test
    void finalisingWaitsForAStoredFailureReceiptAndTheControlDutyGetsItProcessed() {
        UUID id = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        receipt(id, 1, "delivered");
        // a failure receipt within the period that was stored but whose receipt task got lost
        UUID poging = pogingId(id, 1);
        execute(
                "INSERT INTO ontvangst (poging, notify_id, status, completed_at, ontvangen_op) "
                        + "SELECT id, notify_id, 'permanent-failure', now(), now() FROM poging WHERE id = ?",
                poging);

        clock.advance(Duration.ofDays(8));
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id))
                .as("finalising does not overtake the stored failure")
                .isEqualTo("bezorgd:4");

        ManualRunner.of(nmc).runDutiesOnce();
        assertThat(query("SELECT count(*) FROM taak WHERE notificatie = ? AND soort = 'verwerken'", id))
                .as("the control duty planned the lost receipt task")
                .containsExactly("1");
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).isEqualTo("niet-bezorgbaar:5");
    }

    /**
     * Issue 18 §9: a second receipt of the same attempt and completed_at (a duplicate e-mail's id), stored while
     * the processor of the first is finishing, gets a task of its own and is applied without the control duty.
     * The processor is held, deterministically, between its read of the unprocessed receipts and its commit: a
     * test trigger on its first write of a receipt row waits for an advisory lock the test holds.
     */
    @Test
    void aReceiptStoredWhileTheProcessorFinishesGetsItsOwnTask() throws Exception {
        UUID id = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        java.time.Instant completed = clock.instant();
        assertThat(postReceipt(receiptBody(id, 1, "delivered", notifyId(id, 1), completed))
                        .status())
                .isEqualTo(200);
        sql("""
                CREATE OR REPLACE FUNCTION test_gate() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN PERFORM pg_advisory_xact_lock(4711); RETURN NEW; END $$""");
        sql("CREATE TRIGGER test_gate BEFORE UPDATE ON ontvangst FOR EACH ROW EXECUTE FUNCTION test_gate()");
        try (java.sql.Connection gate = DB.connect()) {
            gate.setAutoCommit(true);
            try (var s = gate.createStatement()) {
                s.execute("SELECT pg_advisory_lock(4711)");
            }
            Thread processor =
                    Thread.ofVirtual().start(() -> ManualRunner.of(nmc).runWorkerOnce(TaskKind.VERWERKEN));
            for (int i = 0; i < 400 && waitingAtTheGate().equals("0"); i++) {
                Thread.sleep(25);
            }
            assertThat(waitingAtTheGate()).as("the processor waits at the gate").isEqualTo("1");

            String duplicate = UUID.randomUUID().toString();
            assertThat(postReceipt(receiptBody(id, 1, "delivered", duplicate, completed))
                            .status())
                    .isEqualTo(200);

            try (var s = gate.createStatement()) {
                s.execute("SELECT pg_advisory_unlock(4711)");
            }
            processor.join(20_000);
            assertThat(processor.isAlive()).isFalse();
        } finally {
            sql("DROP TRIGGER IF EXISTS test_gate ON ontvangst");
        }
        assertThat(query(
                        "SELECT count(*) FROM ontvangst o WHERE o.verwerkt_op IS NULL AND NOT EXISTS "
                                + "(SELECT 1 FROM taak t WHERE t.soort = 'verwerken' AND t.ontvangst = o.id)",
                        null))
                .as("every stored, unprocessed receipt has its task")
                .containsExactly("0");

        ManualRunner.of(nmc).runWorkerOnce(TaskKind.VERWERKEN);
        assertThat(query("SELECT count(*) FROM ontvangst WHERE verwerkt_op IS NULL", null))
                .as("applied by its own task, no control duty ran")
                .containsExactly("0");
        assertThat(query("SELECT cardinality(duplicaat_notify_ids) FROM poging WHERE notificatie = ?", id))
                .containsExactly("1");
        assertThat(status(id)).isEqualTo("bezorgd:4");
    }

    private static String waitingAtTheGate() {
        return query("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 4711 AND NOT granted", null)
                .getFirst();
    }

    @Test
    void aSendTaskThatKeepsFailingInsideTheNmcEndsTechnischMislukt() {
        UUID id = accept(DV_REF, Map.of());
        execute("UPDATE notificatie SET datasleutel_gewrapt = '\\x00' WHERE id = ?", id);
        for (int round = 1; round <= 4; round++) {
            ManualRunner.of(nmc).runWorkersOnce();
            clock.advance(Duration.ofMinutes(1));
            assertThat(status(id)).as("failure %d of 5 only postpones", round).isEqualTo("in-verzending:2");
        }
        assertThat(query("SELECT pogingenteller FROM taak WHERE notificatie = ?", id))
                .containsExactly("4");
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).isEqualTo("technisch-mislukt:3");
        assertThat(query("SELECT soort FROM taak WHERE notificatie = ?", id))
                .as("no task left: its erasure is planned once it is due")
                .isEmpty();
        assertThat(notify.server().getAllServeEvents()).as("nothing was sent").isEmpty();
    }

    @Test
    void cancellingWorksOnlyFromAangenomen() {
        UUID id = accept(DV_REF, Map.of());
        Http.Response cancelled = http.delete("/api/nmc/v1/notificaties/" + id, tokenA());
        assertThat(cancelled.status()).isEqualTo(200);
        assertThat(cancelled.json().path("status").asText()).isEqualTo("geannuleerd");
        assertThat(cancelled.json().path("reden").asText()).isEqualTo("geannuleerd");
        assertThat(java.time.OffsetDateTime.parse(
                                cancelled.json().path("definitiefOp").asText())
                        .toInstant())
                .as("when it reached its terminal status (the contract)")
                .isEqualTo(clock.instant().truncatedTo(java.time.temporal.ChronoUnit.MICROS));
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(notify.server().getAllServeEvents()).isEmpty();

        Http.Response again = http.delete("/api/nmc/v1/notificaties/" + id, tokenA());
        assertThat(again.status()).isEqualTo(409);
        assertThat(again.contentType()).startsWith("application/problem+json");
        assertThat(again.json().path("type").asText())
                .as("the contract's Conflict: a type of its own, not the operator API's generic conflict")
                .endsWith("/problemen/niet-annuleerbaar");
        assertThat(again.json().path("title").asText()).isEqualTo("De notificatie kan niet meer worden geannuleerd.");
        assertThat(again.json().path("detail").asText()).contains("geannuleerd");
    }

    /**
     * One dvRef can name many notifications (the same dvRef with another payload is a new one). The search answers at
     * most 100, the newest first, as the contract says: the newest are the ones a DV looks for.
     */
    @Test
    void aSearchAnswersTheNewestHundredFirst() {
        List<Map<String, Object>> items = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            items.add(Map.of(
                    "dvRef",
                    DV_REF,
                    "berichttype",
                    TestNmc.BERICHTTYPE,
                    "emailadres",
                    "adres" + i + "@bedrijf.example",
                    "personalisation",
                    Map.of("tekst", SECRET_TEXT)));
        }
        Http.Response bulk = http.post(
                "/api/nmc/v1/decentraal/notificaties/bulk", tokenA(), Http.json(Map.of("notificaties", items)));
        assertThat(bulk.status()).as(bulk.body()).isEqualTo(200);
        clock.advance(Duration.ofSeconds(1));
        UUID newest = accept(DV_REF, Map.of());

        JsonNode found = http.get("/api/nmc/v1/notificaties?dvRef=" + DV_REF, tokenA())
                .json()
                .path("notificaties");
        assertThat(found).hasSize(100);
        assertThat(found.get(0).path("id").asText()).isEqualTo(newest.toString());
    }

    @Test
    void anotherDvsNotificationDoesNotExistForTheCaller() {
        UUID id = accept(DV_REF, Map.of());
        assertThat(http.get("/api/nmc/v1/notificaties/" + id, tokenB()).status())
                .isEqualTo(404);
        assertThat(http.delete("/api/nmc/v1/notificaties/" + id, tokenB()).status())
                .isEqualTo(404);
        assertThat(http.get("/api/nmc/v1/notificaties?dvRef=" + DV_REF, tokenB())
                        .json()
                        .path("notificaties"))
                .isEmpty();
        assertThat(http.get("/api/nmc/v1/notificaties?dvRef=" + DV_REF, tokenA())
                        .json()
                        .path("notificaties"))
                .hasSize(1);
    }

    @Test
    void aRepeatedRequestReturnsTheSameNotification() {
        UUID first = accept(DV_REF, Map.of());
        UUID repeat = accept(DV_REF, Map.of());
        UUID other = accept(
                DV_REF,
                Map.of("geldigTot", clock.instant().plus(Duration.ofDays(1)).toString()));
        assertThat(repeat).isEqualTo(first);
        assertThat(other).as("another payload is another notification").isNotEqualTo(first);
        assertThat(query("SELECT count(*) FROM notificatie WHERE id = ?", first))
                .containsExactly("1");
    }

    /**
     * Design §3 and the contract: a repeat (same dvRef, same payload) returns 202 with the same id. Found by two
     * reads against the seeds: the checks that depend on the moment or the register ran before the repeat look-up,
     * so a DV whose 202 was lost and that retried after its geldigTot, or after the operator withdrew the
     * berichttype, got a 400 for a notification that was stored and sent; resubmitting anew e-mailed twice.
     */
    @Test
    void aRepeatGetsItsNotificationAfterItsGeldigTotPassedAndAfterItsBerichttypeWasWithdrawn() {
        String geldigTot = clock.instant().plus(Duration.ofMinutes(1)).toString();
        UUID first = accept(DV_REF, Map.of("geldigTot", geldigTot));
        clock.advance(Duration.ofMinutes(2));

        assertThat(accept(DV_REF, Map.of("geldigTot", geldigTot))).isEqualTo(first);
        Map<String, Object> item = new java.util.HashMap<>(Map.of(
                "dvRef", DV_REF,
                "berichttype", TestNmc.BERICHTTYPE,
                "emailadres", EMAIL,
                "geldigTot", geldigTot,
                "personalisation", Map.of("tekst", SECRET_TEXT)));
        Map<String, Object> fresh = new java.util.HashMap<>(item);
        fresh.put("dvRef", "NIEUW-NA-GELDIG-TOT");
        Http.Response bulk = http.post(
                "/api/nmc/v1/decentraal/notificaties/bulk",
                tokenA(),
                Http.json(Map.of("notificaties", List.of(item, fresh))));
        assertThat(bulk.status()).as(bulk.body()).isEqualTo(200);
        assertThat(bulk.json()
                        .path("resultaten")
                        .get(0)
                        .path("notificatie")
                        .path("id")
                        .asText())
                .isEqualTo(first.toString());
        assertThat(bulk.json().path("resultaten").get(1).path("status").asInt())
                .as("a new request past its geldigTot is still refused")
                .isEqualTo(400);
        Http.Response freshAlone = postDecentraal("NIEUW-NA-GELDIG-TOT", Map.of("geldigTot", geldigTot));
        assertThat(freshAlone.status()).as(freshAlone.body()).isEqualTo(400);
        assertThat(freshAlone.json().path("errors").findValuesAsText("name")).containsExactly("/geldigTot");

        UUID second = accept("NOG-EEN", Map.of());
        sql("DELETE FROM dienstverlener_berichttype WHERE berichttype = '" + TestNmc.BERICHTTYPE + "'");
        clock.advance(Duration.ofSeconds(6)); // register.cache-ttl
        assertThat(accept("NOG-EEN", Map.of())).isEqualTo(second);
        Http.Response withdrawn = postDecentraal("NIEUW-NA-INTREKKING", Map.of());
        assertThat(withdrawn.status()).as(withdrawn.body()).isEqualTo(400);
        assertThat(query("SELECT count(*) FROM notificatie", null)).containsExactly("2");
    }

    /**
     * Issue 18 §1: the batch id only groups a submission (ADR 0024); a DV that re-posts the same dvRef and payload
     * under a new batch id after a time-out gets the first notification, not a second e-mail.
     */
    @Test
    void aRepeatUnderANewBatchIdIsTheSameNotification() {
        UUID first = accept(DV_REF, Map.of("batchId", "batch-1"));
        UUID repeat = accept(DV_REF, Map.of("batchId", "batch-2"));

        assertThat(repeat).isEqualTo(first);
        assertThat(query("SELECT count(*) FROM notificatie", null)).containsExactly("1");
        assertThat(http.get("/api/nmc/v1/notificaties/" + first, tokenA())
                        .json()
                        .path("batchId")
                        .asText())
                .as("the first notification keeps its own batch id")
                .isEqualTo("batch-1");
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(notify.server()
                        .findAll(com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor(
                                com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo(
                                        "/v2/notifications/email"))))
                .as("one e-mail")
                .hasSize(1);
    }

    @Test
    void aRetriedCallbackIsStoredOnceAndAnUnknownReferenceNotAtAll() {
        UUID id = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        String body = receiptBody(id, 1, "delivered");
        assertThat(postReceipt(body).status()).isEqualTo(200);
        assertThat(postReceipt(body).status()).isEqualTo(200);
        assertThat(postReceipt(body.replace(
                                pogingId(id, 1).toString(), UUID.randomUUID().toString()))
                        .status())
                .isEqualTo(200);
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(query("SELECT count(*) FROM ontvangst", null)).containsExactly("1");
        assertThat(status(id)).isEqualTo("bezorgd:4");
    }

    @Test
    void noPersonalDataReachesTheLogTablesOrTheLogs() {
        UUID id = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        receipt(id, 1, "delivered");
        notify.refuseAddress();
        accept("DOSSIER-4712", Map.of());
        ManualRunner.of(nmc).runWorkersOnce();

        String stored = String.join("\n", query("""
                SELECT row_to_json(e)::text FROM event e
                UNION ALL SELECT row_to_json(t)::text FROM taak t
                UNION ALL SELECT row_to_json(o)::text FROM ontvangst o
                UNION ALL SELECT row_to_json(p)::text FROM poging p
                UNION ALL SELECT row_to_json(n)::text FROM notificatie n
                """, null));
        assertThat(stored)
                .isNotBlank()
                .doesNotContain(EMAIL)
                .doesNotContain(DV_REF)
                .doesNotContain(SECRET_TEXT)
                .doesNotContain("ontvanger.lifecycle");
        assertThat(logs.text()).doesNotContain(EMAIL).doesNotContain(DV_REF).doesNotContain(SECRET_TEXT);
    }

    /** A notification whose attempt 1 failed temporarily and whose resend, attempt 2, went out. */
    private UUID resentAfterATemporaryFailure() {
        UUID id = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        receipt(id, 1, "temporary-failure");
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(pogingen(id)).containsExactly("1:tijdelijk-mislukt", "2:verzonden");
        return id;
    }
}
