package nl.overheid.moz.nmc.receipts;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import nl.overheid.moz.nmc.lifecycle.AllowedTransitions;
import nl.overheid.moz.nmc.lifecycle.NotificatieStatus;
import nl.overheid.moz.nmc.lifecycle.PogingStatus;
import nl.overheid.moz.nmc.lifecycle.Reden;
import nl.overheid.moz.nmc.receipts.ReceiptRules.Decision;
import nl.overheid.moz.nmc.receipts.ReceiptRules.Situation;
import org.junit.jupiter.api.Test;

/**
 * The receipt rules over <em>every</em> situation (the space is finite: 22,400 combinations), checked
 * against invariants of design §7, plus the individual rules as examples.
 */
class ReceiptRulesTest {

    private static List<Situation> everySituation() {
        List<Situation> all = new ArrayList<>();
        for (NotificatieStatus notificatie : NotificatieStatus.values()) {
            for (int number = 1; number <= 2; number++) {
                for (PogingStatus poging : PogingStatus.values()) {
                    for (boolean older : new boolean[] {false, true}) {
                        for (ReceiptStatus receipt : ReceiptStatus.values()) {
                            for (boolean basis : new boolean[] {false, true}) {
                                for (boolean within : new boolean[] {false, true}) {
                                    for (boolean expired : new boolean[] {false, true}) {
                                        for (boolean other : new boolean[] {false, true}) {
                                            all.add(new Situation(
                                                    notificatie,
                                                    number,
                                                    poging,
                                                    older,
                                                    receipt,
                                                    basis,
                                                    within,
                                                    expired,
                                                    other));
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return all;
    }

    @Test
    void everyTransitionItAsksForIsAnAllowedPair() {
        for (Situation s : everySituation()) {
            Decision d = ReceiptRules.judge(s);
            if (d.to() != null) {
                assertThat(AllowedTransitions.allowed(s.notificatie(), d.to()))
                        .as(s + " -> " + d)
                        .isTrue();
            }
        }
    }

    @Test
    void terminalStatusesAbsorbExceptBezorgstatusOnbekend() {
        for (Situation s : everySituation()) {
            if (s.notificatie().terminal() && s.notificatie() != NotificatieStatus.BEZORGSTATUS_ONBEKEND) {
                assertThat(ReceiptRules.judge(s).to()).as(s.toString()).isNull();
                assertThat(ReceiptRules.judge(s).planResend()).as(s.toString()).isFalse();
            }
        }
    }

    @Test
    void anOlderReceiptOrAnUnknownStatusIsOnlyRecorded() {
        for (Situation s : everySituation()) {
            if (s.olderThanApplied() || s.receipt() == ReceiptStatus.UNKNOWN) {
                assertThat(ReceiptRules.judge(s).recordOnly()).as(s.toString()).isTrue();
            }
            assertThat(ReceiptRules.judge(s) instanceof Decision.UnknownStatus)
                    .isEqualTo(s.receipt() == ReceiptStatus.UNKNOWN);
        }
    }

    @Test
    void aResendIsPlannedOnlyForTheFirstAttemptBeforeGeldigTot() {
        for (Situation s : everySituation()) {
            if (ReceiptRules.judge(s).planResend()) {
                assertThat(s.pogingNummer()).as(s.toString()).isEqualTo(1);
                assertThat(s.expired()).as(s.toString()).isFalse();
                assertThat(s.receipt().failure()).as(s.toString()).isTrue();
            }
        }
    }

    @Test
    void aFinaliseTaskIsPlannedOnlyForANewDeliveryProof() {
        for (Situation s : everySituation()) {
            Decision d = ReceiptRules.judge(s);
            if (d.planFinalise()) {
                NotificatieStatus after = d.to() != null ? d.to() : s.notificatie();
                assertThat(after).as(s.toString()).isEqualTo(NotificatieStatus.BEZORGD);
                assertThat(d instanceof Decision.Delivered && s.receipt() == ReceiptStatus.DELIVERED
                                || d instanceof Decision.ProofMoves && s.otherAttemptDelivered())
                        .as(s + ": this delivery, or the other attempt's recorded one")
                        .isTrue();
            }
        }
    }

    /**
     * Issue 18 §3 ("op de poging vastgelegd"): a receipt that is not older than the last one recorded on its
     * attempt and has a known status leaves its outcome on the attempt, whatever it does to the notification
     * (the processor then ends that attempt's reconciliation); only a repeated delivered changes nothing.
     */
    @Test
    void aReceiptThatIsNotOlderIsRecordedOnItsAttemptWhateverItDoesToTheNotification() {
        for (Situation s : everySituation()) {
            if (s.olderThanApplied() || s.receipt() == ReceiptStatus.UNKNOWN) {
                continue;
            }
            Decision d = ReceiptRules.judge(s);
            if (d instanceof Decision.DeliveredAgain) {
                assertThat(s.receipt()).as(s.toString()).isEqualTo(ReceiptStatus.DELIVERED);
                assertThat(d.outcome()).as(s.toString()).isNull();
            } else {
                assertThat(d.outcome()).as(s.toString()).isEqualTo(ReceiptRules.outcome(s.receipt()));
            }
            if (d.to() == null && !d.planResend() && !(d instanceof Decision.DeliveredAgain)) {
                assertThat(d)
                        .as(s.toString())
                        .isIn(
                                new Decision.Recorded(ReceiptRules.outcome(s.receipt())),
                                new Decision.ProofMoves(ReceiptRules.outcome(s.receipt())));
            }
        }
    }

    /** Issue 18 §2: the delivery proof is the first delivery; a later delivered on bezorgd moves nothing. */
    @Test
    void aRepeatedDeliveredNeverMovesTheProofOrTheFinalisation() {
        for (Situation s : everySituation()) {
            if (s.receipt() != ReceiptStatus.DELIVERED
                    || s.olderThanApplied()
                    || s.notificatie() != NotificatieStatus.BEZORGD) {
                continue;
            }
            Decision d = ReceiptRules.judge(s);
            assertThat(d.planFinalise() || d.completeFinalise() || d.clearsProof() || d.to() != null)
                    .as(s + " -> " + d)
                    .isFalse();
            if (s.poging() == PogingStatus.BEZORGD) {
                assertThat(d).as(s.toString()).isEqualTo(new Decision.DeliveredAgain());
                assertThat(d.outcome()).isNull();
            }
        }
    }

    @Test
    void theProofMovesOnlyWithinThePeriodOnItsAttemptWhenTheOtherAttemptIsDelivered() {
        for (Situation s : everySituation()) {
            Decision d = ReceiptRules.judge(s);
            if (d instanceof Decision.ProofMoves) {
                assertThat(s.notificatie()).as(s.toString()).isEqualTo(NotificatieStatus.BEZORGD);
                assertThat(s.basisOfBezorgd() && s.withinMebvPeriod() && s.otherAttemptDelivered())
                        .as(s.toString())
                        .isTrue();
                assertThat(s.poging().running()).as(s.toString()).isFalse();
                assertThat(s.receipt())
                        .as(s.toString())
                        .isIn(ReceiptStatus.PERMANENT_FAILURE, ReceiptStatus.TEMPORARY_FAILURE);
                assertThat(d.completeFinalise() && d.planFinalise() && d.clearsProof())
                        .isTrue();
            }
        }
    }

    /** Only a transition out of bezorgd undoes a proof, and every such transition does. */
    @Test
    void theProofIsUndoneExactlyWhenAFailureWithinThePeriodLeavesBezorgdOrTheProofMoves() {
        for (Situation s : everySituation()) {
            Decision d = ReceiptRules.judge(s);
            boolean leavesBezorgd = s.notificatie() == NotificatieStatus.BEZORGD && d.to() != null;
            assertThat(d.clearsProof()).as(s + " -> " + d).isEqualTo(leavesBezorgd || d instanceof Decision.ProofMoves);
        }
    }

    @Test
    void aDeliveredOnAnyAttemptThatIsNotOlderMakesVerzondenAndBezorgstatusOnbekendBezorgd() {
        for (Situation s : everySituation()) {
            if (s.receipt() == ReceiptStatus.DELIVERED
                    && !s.olderThanApplied()
                    && (s.notificatie() == NotificatieStatus.VERZONDEN
                            || s.notificatie() == NotificatieStatus.BEZORGSTATUS_ONBEKEND)) {
                assertThat(ReceiptRules.judge(s)).as(s.toString()).isEqualTo(new Decision.Delivered());
            }
        }
    }

    @Test
    void theIndividualRulesReadLikeTheDesign() {
        // delivered on a running attempt: bezorgd, with a finalise task
        assertThat(judge(NotificatieStatus.VERZONDEN, 1, PogingStatus.VERZONDEN, ReceiptStatus.DELIVERED))
                .isEqualTo(new Decision.Delivered());
        // permanent-failure: niet-bezorgbaar, onbereikbaar
        assertThat(judge(NotificatieStatus.VERZONDEN, 1, PogingStatus.VERZONDEN, ReceiptStatus.PERMANENT_FAILURE))
                .isEqualTo(new Decision.Ends(
                        PogingStatus.PERMANENT_MISLUKT, NotificatieStatus.NIET_BEZORGBAAR, Reden.ONBEREIKBAAR, false));
        // temporary or technical failure on attempt 1: a resend
        assertThat(judge(NotificatieStatus.VERZONDEN, 1, PogingStatus.VERZONDEN, ReceiptStatus.TECHNICAL_FAILURE))
                .isEqualTo(new Decision.Resend(PogingStatus.TECHNISCH_MISLUKT, false));
        // on attempt 2: temporary → niet-bezorgbaar, technical → technisch-mislukt
        assertThat(judge(NotificatieStatus.VERZONDEN, 2, PogingStatus.VERZONDEN, ReceiptStatus.TEMPORARY_FAILURE))
                .isEqualTo(new Decision.Ends(
                        PogingStatus.TIJDELIJK_MISLUKT, NotificatieStatus.NIET_BEZORGBAAR, Reden.ONBEREIKBAAR, false));
        assertThat(judge(NotificatieStatus.VERZONDEN, 2, PogingStatus.VERZONDEN, ReceiptStatus.TECHNICAL_FAILURE))
                .isEqualTo(new Decision.Ends(
                        PogingStatus.TECHNISCH_MISLUKT, NotificatieStatus.TECHNISCH_MISLUKT, Reden.TECHNISCH, false));
        // after geldig_tot: verlopen instead of a resend
        assertThat(ReceiptRules.judge(new Situation(
                        NotificatieStatus.VERZONDEN,
                        1,
                        PogingStatus.VERZONDEN,
                        false,
                        ReceiptStatus.TEMPORARY_FAILURE,
                        false,
                        true,
                        true,
                        false)))
                .isEqualTo(new Decision.Ends(
                        PogingStatus.TIJDELIJK_MISLUKT, NotificatieStatus.VERLOPEN, Reden.VERLOPEN, false));
        // bezorgd: a temporary failure within the period on the delivered attempt 1 plans the resend
        assertThat(ReceiptRules.judge(new Situation(
                        NotificatieStatus.BEZORGD,
                        1,
                        PogingStatus.BEZORGD,
                        false,
                        ReceiptStatus.TEMPORARY_FAILURE,
                        true,
                        true,
                        false,
                        false)))
                .isEqualTo(new Decision.Resend(PogingStatus.TIJDELIJK_MISLUKT, true));
        // ... a repeated delivered changes nothing: the first delivery is the proof (issue 18 §2)
        assertThat(ReceiptRules.judge(new Situation(
                        NotificatieStatus.BEZORGD,
                        1,
                        PogingStatus.BEZORGD,
                        false,
                        ReceiptStatus.DELIVERED,
                        true,
                        true,
                        false,
                        false)))
                .isEqualTo(new Decision.DeliveredAgain());
        // ... but after the period a failure is only recorded on its attempt (issue 18 §3)
        assertThat(ReceiptRules.judge(new Situation(
                        NotificatieStatus.BEZORGD,
                        1,
                        PogingStatus.BEZORGD,
                        false,
                        ReceiptStatus.PERMANENT_FAILURE,
                        true,
                        false,
                        false,
                        false)))
                .isEqualTo(new Decision.Recorded(PogingStatus.PERMANENT_MISLUKT));
        // ... a delivered on attempt 2 while bezorgd rests on attempt 1 is recorded on attempt 2
        assertThat(judge(NotificatieStatus.BEZORGD, 2, PogingStatus.VERZONDEN, ReceiptStatus.DELIVERED))
                .isEqualTo(new Decision.Recorded(PogingStatus.BEZORGD));
        // ... a failure within the period on the attempt the proof rests on, while the other attempt is
        // delivered: the proof moves to the other attempt and the notification stays bezorgd
        assertThat(ReceiptRules.judge(new Situation(
                        NotificatieStatus.BEZORGD,
                        1,
                        PogingStatus.BEZORGD,
                        false,
                        ReceiptStatus.TEMPORARY_FAILURE,
                        true,
                        true,
                        false,
                        true)))
                .isEqualTo(new Decision.ProofMoves(PogingStatus.TIJDELIJK_MISLUKT));
        // bezorgstatus-onbekend: a late delivered or permanent failure corrects it, from any attempt; a temporary
        // one is recorded on its attempt
        assertThat(judge(NotificatieStatus.BEZORGSTATUS_ONBEKEND, 1, PogingStatus.ONBEKEND, ReceiptStatus.DELIVERED))
                .isEqualTo(new Decision.Delivered());
        assertThat(judge(
                        NotificatieStatus.BEZORGSTATUS_ONBEKEND,
                        1,
                        PogingStatus.ONBEKEND,
                        ReceiptStatus.TEMPORARY_FAILURE))
                .isEqualTo(new Decision.Recorded(PogingStatus.TIJDELIJK_MISLUKT));
        assertThat(judge(
                        NotificatieStatus.BEZORGSTATUS_ONBEKEND,
                        1,
                        PogingStatus.TIJDELIJK_MISLUKT,
                        ReceiptStatus.PERMANENT_FAILURE))
                .isEqualTo(new Decision.Ends(
                        PogingStatus.PERMANENT_MISLUKT, NotificatieStatus.NIET_BEZORGBAAR, Reden.ONBEREIKBAAR, false));
        // a status the NMC does not know is recorded and counted
        assertThat(judge(NotificatieStatus.VERZONDEN, 1, PogingStatus.VERZONDEN, ReceiptStatus.UNKNOWN))
                .isEqualTo(new Decision.UnknownStatus());
    }

    @Test
    void aReceiptCountsForItsOwnCompletedAtButNeverLaterThanNow() {
        java.time.Instant now = java.time.Instant.parse("2026-12-01T10:00:00Z");
        assertThat(ReceiptRules.effectiveCompletedAt(now.minusSeconds(60), now)).isEqualTo(now.minusSeconds(60));
        assertThat(ReceiptRules.effectiveCompletedAt(now.plusSeconds(3600), now))
                .as("a NotifyNL clock ahead of ours is capped")
                .isEqualTo(now);
        assertThat(ReceiptRules.effectiveCompletedAt(null, now)).isEqualTo(now);
    }

    @Test
    void theMebvPeriodCountsFromTheDeliveryProofInclusive() {
        java.time.Instant delivered = java.time.Instant.parse("2026-12-01T10:00:00Z");
        java.time.Duration period = java.time.Duration.ofDays(7);
        assertThat(ReceiptRules.withinMebvPeriod(null, delivered, period)).isTrue();
        assertThat(ReceiptRules.withinMebvPeriod(delivered, delivered.plus(period), period))
                .isTrue();
        assertThat(ReceiptRules.withinMebvPeriod(
                        delivered, delivered.plus(period).plusNanos(1000), period))
                .isFalse();
    }

    private static Decision judge(NotificatieStatus n, int number, PogingStatus p, ReceiptStatus r) {
        return ReceiptRules.judge(new Situation(n, number, p, false, r, false, true, false, false));
    }
}
