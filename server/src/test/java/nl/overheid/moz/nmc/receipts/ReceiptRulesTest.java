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
            for (int nummer = 1; nummer <= 2; nummer++) {
                for (PogingStatus poging : PogingStatus.values()) {
                    for (boolean older : new boolean[] {false, true}) {
                        for (ReceiptStatus receipt : ReceiptStatus.values()) {
                            for (boolean basis : new boolean[] {false, true}) {
                                for (boolean within : new boolean[] {false, true}) {
                                    for (boolean expired : new boolean[] {false, true}) {
                                        all.add(new Situation(notificatie, nummer, poging, older, receipt, basis,
                                                within, expired));
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
            if (d.naar() != null) {
                assertThat(AllowedTransitions.allowed(s.notificatie(), d.naar())).as(s + " -> " + d).isTrue();
            }
        }
    }

    @Test
    void terminalStatusesAbsorbExceptBezorgstatusOnbekend() {
        for (Situation s : everySituation()) {
            if (s.notificatie().terminal() && s.notificatie() != NotificatieStatus.BEZORGSTATUS_ONBEKEND) {
                assertThat(ReceiptRules.judge(s).naar()).as(s.toString()).isNull();
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
            assertThat(ReceiptRules.judge(s).unknownStatus()).isEqualTo(s.receipt() == ReceiptStatus.UNKNOWN);
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
                NotificatieStatus after = d.naar() != null ? d.naar() : s.notificatie();
                assertThat(after).as(s.toString()).isEqualTo(NotificatieStatus.BEZORGD);
            }
        }
    }

    @Test
    void anAttemptThatIsNotRunningChangesNothingOutsideTheMebvPeriodOfItsDelivery() {
        for (Situation s : everySituation()) {
            boolean deliveredBasisWithin = s.notificatie() == NotificatieStatus.BEZORGD
                    && s.poging() == PogingStatus.BEZORGD && s.basisOfBezorgd() && s.withinMebvPeriod();
            if (!s.poging().running() && !deliveredBasisWithin) {
                assertThat(ReceiptRules.judge(s).recordOnly()).as(s.toString()).isTrue();
            }
        }
    }

    @Test
    void theIndividualRules() {
        assertThat(judge(NotificatieStatus.VERZONDEN, 1, PogingStatus.VERZONDEN, ReceiptStatus.DELIVERED))
                .isEqualTo(new Decision(PogingStatus.BEZORGD, NotificatieStatus.BEZORGD, null, false, true, false, false));
        assertThat(judge(NotificatieStatus.VERZONDEN, 1, PogingStatus.VERZONDEN, ReceiptStatus.PERMANENT_FAILURE))
                .isEqualTo(new Decision(PogingStatus.PERMANENT_MISLUKT, NotificatieStatus.NIET_BEZORGBAAR,
                        Reden.ONBEREIKBAAR, false, false, false, false));
        assertThat(judge(NotificatieStatus.VERZONDEN, 1, PogingStatus.VERZONDEN, ReceiptStatus.TECHNICAL_FAILURE))
                .isEqualTo(new Decision(PogingStatus.TECHNISCH_MISLUKT, null, null, true, false, false, false));
        assertThat(judge(NotificatieStatus.VERZONDEN, 2, PogingStatus.VERZONDEN, ReceiptStatus.TEMPORARY_FAILURE).naar())
                .isEqualTo(NotificatieStatus.NIET_BEZORGBAAR);
        assertThat(judge(NotificatieStatus.VERZONDEN, 2, PogingStatus.VERZONDEN, ReceiptStatus.TECHNICAL_FAILURE))
                .isEqualTo(new Decision(PogingStatus.TECHNISCH_MISLUKT, NotificatieStatus.TECHNISCH_MISLUKT,
                        Reden.TECHNISCH, false, false, false, false));
        assertThat(ReceiptRules.judge(new Situation(NotificatieStatus.VERZONDEN, 1, PogingStatus.VERZONDEN, false,
                ReceiptStatus.TEMPORARY_FAILURE, false, true, true)).naar()).isEqualTo(NotificatieStatus.VERLOPEN);
        // bezorgd: a temporary failure within the period on the delivered attempt 1 plans the resend
        assertThat(ReceiptRules.judge(new Situation(NotificatieStatus.BEZORGD, 1, PogingStatus.BEZORGD, false,
                ReceiptStatus.TEMPORARY_FAILURE, true, true, false)))
                .isEqualTo(new Decision(PogingStatus.TIJDELIJK_MISLUKT, NotificatieStatus.VERZONDEN, null, true, false,
                        true, false));
        // ... but after the period it is only recorded
        assertThat(ReceiptRules.judge(new Situation(NotificatieStatus.BEZORGD, 1, PogingStatus.BEZORGD, false,
                ReceiptStatus.PERMANENT_FAILURE, true, false, false)).recordOnly()).isTrue();
        // bezorgstatus-onbekend: a late delivered or permanent failure corrects it; a temporary one does not
        assertThat(judge(NotificatieStatus.BEZORGSTATUS_ONBEKEND, 1, PogingStatus.ONBEKEND, ReceiptStatus.DELIVERED)
                .naar()).isEqualTo(NotificatieStatus.BEZORGD);
        assertThat(judge(NotificatieStatus.BEZORGSTATUS_ONBEKEND, 1, PogingStatus.ONBEKEND,
                ReceiptStatus.TEMPORARY_FAILURE).recordOnly()).isTrue();
    }

    private static Decision judge(NotificatieStatus n, int nummer, PogingStatus p, ReceiptStatus r) {
        return ReceiptRules.judge(new Situation(n, nummer, p, false, r, false, true, false));
    }
}
