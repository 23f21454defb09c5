package nl.overheid.moz.nmc.receipts;

import nl.overheid.moz.nmc.lifecycle.NotificatieStatus;
import nl.overheid.moz.nmc.lifecycle.PogingStatus;
import nl.overheid.moz.nmc.lifecycle.Reden;

/**
 * The outcome rules of design §7.3 as one pure function: what a receipt does to its attempt and
 * notification. No I/O, so it is tested exhaustively and by property; {@link ReceiptProcessor} applies the
 * decision under the notification's lock.
 */
public final class ReceiptRules {

    private ReceiptRules() {
    }

    /**
     * What the processor knows when it judges a receipt.
     *
     * @param notificatie      the notification's status
     * @param pogingNummer     1 or 2
     * @param poging           the attempt's status (after adopting a NotifyNL id from the receipt)
     * @param olderThanApplied the receipt's completed_at is before the last one applied on this attempt
     * @param receipt          the receipt's status
     * @param basisOfBezorgd   this attempt is the one the notification's bezorgd rests on
     * @param withinMebvPeriod the receipt's completed_at lies within the MEBV period after the delivery
     * @param expired          geldig_tot has passed (no new attempt may start)
     */
    public record Situation(NotificatieStatus notificatie, int pogingNummer, PogingStatus poging,
                            boolean olderThanApplied, ReceiptStatus receipt, boolean basisOfBezorgd,
                            boolean withinMebvPeriod, boolean expired) {
    }

    /**
     * The decision. {@code pogingStatus == null}: the attempt keeps its status (receipt only recorded);
     * {@code naar == null}: no transition.
     */
    public record Decision(PogingStatus pogingStatus, NotificatieStatus naar, Reden reden, boolean planResend,
                           boolean planFinalise, boolean completeFinalise, boolean unknownStatus) {

        static final Decision RECORD_ONLY = new Decision(null, null, null, false, false, false, false);

        public boolean recordOnly() {
            return pogingStatus == null && naar == null && !planResend && !planFinalise && !completeFinalise;
        }
    }

    public static Decision judge(Situation s) {
        if (s.receipt() == ReceiptStatus.UNKNOWN) {
            return new Decision(null, null, null, false, false, false, true);
        }
        if (s.olderThanApplied()) {
            return Decision.RECORD_ONLY;
        }
        if (s.poging().running()) {
            return onRunningAttempt(s);
        }
        if (s.notificatie() == NotificatieStatus.BEZORGD && s.poging() == PogingStatus.BEZORGD
                && s.basisOfBezorgd() && s.withinMebvPeriod()) {
            return onDeliveredWithinPeriod(s);
        }
        return Decision.RECORD_ONLY;
    }

    private static Decision onRunningAttempt(Situation s) {
        PogingStatus outcome = outcome(s.receipt());
        return switch (s.notificatie()) {
            case VERZONDEN -> switch (s.receipt()) {
                case DELIVERED -> new Decision(outcome, NotificatieStatus.BEZORGD, null, false, true, false, false);
                case PERMANENT_FAILURE -> fail(outcome, NotificatieStatus.NIET_BEZORGBAAR, Reden.ONBEREIKBAAR, false);
                case TEMPORARY_FAILURE, TECHNICAL_FAILURE -> retryOrEnd(s, outcome, false);
                case UNKNOWN -> throw new AssertionError("handled above");
            };
            case BEZORGSTATUS_ONBEKEND -> switch (s.receipt()) {
                case DELIVERED -> new Decision(outcome, NotificatieStatus.BEZORGD, null, false, true, false, false);
                case PERMANENT_FAILURE -> fail(outcome, NotificatieStatus.NIET_BEZORGBAAR, Reden.ONBEREIKBAAR, false);
                default -> Decision.RECORD_ONLY;
            };
            default -> Decision.RECORD_ONLY;
        };
    }

    private static Decision onDeliveredWithinPeriod(Situation s) {
        PogingStatus outcome = outcome(s.receipt());
        return switch (s.receipt()) {
            // A new delivered on the same attempt moves the delivery proof and plans a new finalise task.
            case DELIVERED -> new Decision(PogingStatus.BEZORGD, null, null, false, true, true, false);
            case PERMANENT_FAILURE -> fail(outcome, NotificatieStatus.NIET_BEZORGBAAR, Reden.ONBEREIKBAAR, true);
            case TEMPORARY_FAILURE -> retryOrEnd(s, outcome, true);
            default -> Decision.RECORD_ONLY;
        };
    }

    /** temporary/technical failure: attempt 1 gets a resend (or verlopen after geldig_tot); attempt 2 ends. */
    private static Decision retryOrEnd(Situation s, PogingStatus outcome, boolean fromBezorgd) {
        if (s.pogingNummer() >= 2) {
            return s.receipt() == ReceiptStatus.TEMPORARY_FAILURE
                    ? fail(outcome, NotificatieStatus.NIET_BEZORGBAAR, Reden.ONBEREIKBAAR, fromBezorgd)
                    : fail(outcome, NotificatieStatus.TECHNISCH_MISLUKT, Reden.TECHNISCH, fromBezorgd);
        }
        if (s.expired()) {
            return fail(outcome, NotificatieStatus.VERLOPEN, Reden.VERLOPEN, fromBezorgd);
        }
        return new Decision(outcome, fromBezorgd ? NotificatieStatus.VERZONDEN : null, null, true, false, fromBezorgd,
                false);
    }

    private static Decision fail(PogingStatus outcome, NotificatieStatus naar, Reden reden, boolean completeFinalise) {
        return new Decision(outcome, naar, reden, false, false, completeFinalise, false);
    }

    static PogingStatus outcome(ReceiptStatus receipt) {
        return switch (receipt) {
            case DELIVERED -> PogingStatus.BEZORGD;
            case PERMANENT_FAILURE -> PogingStatus.PERMANENT_MISLUKT;
            case TEMPORARY_FAILURE -> PogingStatus.TIJDELIJK_MISLUKT;
            case TECHNICAL_FAILURE -> PogingStatus.TECHNISCH_MISLUKT;
            case UNKNOWN -> null;
        };
    }
}
