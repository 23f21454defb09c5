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
 * The receipt rules over <em>every</em> situation (the space is finite: 11,200 combinations), checked
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
                                        all.add(new Situation(
                                                notificatie, number, poging, older, receipt, basis, within, expired));
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
    void aFinaliseTaskIsPlannedOnlyForADelivery() {
        for (Situation s : everySituation()) {
            Decision d = ReceiptRules.judge(s);
            if (d.planFinalise()) {
                assertThat(s.receipt()).isEqualTo(ReceiptStatus.DELIVERED);
                NotificatieStatus after = d.to() != null ? d.to() : s.notificatie();
                assertThat(after).as(s.toString()).isEqualTo(NotificatieStatus.BEZORGD);
            }
        }
    }

    @Test
    void anAttemptThatIsNotRunningChangesNothingButForADeliveredOrWithinTheMebvPeriodOfItsDelivery() {
        for (Situation s : everySituation()) {
            boolean deliveredBasisWithin = s.notificatie() == NotificatieStatus.BEZORGD
                    && s.poging() == PogingStatus.BEZORGD
                    && s.basisOfBezorgd()
                    && s.withinMebvPeriod();
            boolean deliveredOnAnyPoging = s.receipt() == ReceiptStatus.DELIVERED
                    && (s.notificatie() == NotificatieStatus.VERZONDEN
                            || s.notificatie() == NotificatieStatus.BEZORGSTATUS_ONBEKEND);
            if (!s.poging().running() && !deliveredBasisWithin && !deliveredOnAnyPoging) {
                assertThat(ReceiptRules.judge(s).recordOnly()).as(s.toString()).isTrue();
            }
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
                        true)))
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
                        false)))
                .isEqualTo(new Decision.Resend(PogingStatus.TIJDELIJK_MISLUKT, true));
        // ... a new delivered replaces the finalise task
        assertThat(ReceiptRules.judge(new Situation(
                        NotificatieStatus.BEZORGD,
                        1,
                        PogingStatus.BEZORGD,
                        false,
                        ReceiptStatus.DELIVERED,
                        true,
                        true,
                        false)))
                .isEqualTo(new Decision.DeliveredAgain());
        // ... but after the period a failure is only recorded
        assertThat(ReceiptRules.judge(new Situation(
                        NotificatieStatus.BEZORGD,
                        1,
                        PogingStatus.BEZORGD,
                        false,
                        ReceiptStatus.PERMANENT_FAILURE,
                        true,
                        false,
                        false)))
                .isEqualTo(new Decision.RecordOnly());
        // bezorgstatus-onbekend: a late delivered or permanent failure corrects it; a temporary one does not
        assertThat(judge(NotificatieStatus.BEZORGSTATUS_ONBEKEND, 1, PogingStatus.ONBEKEND, ReceiptStatus.DELIVERED))
                .isEqualTo(new Decision.Delivered());
        assertThat(judge(
                        NotificatieStatus.BEZORGSTATUS_ONBEKEND,
                        1,
                        PogingStatus.ONBEKEND,
                        ReceiptStatus.TEMPORARY_FAILURE))
                .isEqualTo(new Decision.RecordOnly());
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
    void theMebvPeriodCountsFromTheLastAppliedReceiptInclusive() {
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
        return ReceiptRules.judge(new Situation(n, number, p, false, r, false, true, false));
    }
}
