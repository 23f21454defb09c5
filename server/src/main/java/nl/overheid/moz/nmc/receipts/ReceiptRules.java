package nl.overheid.moz.nmc.receipts;

import java.time.Duration;
import java.time.Instant;
import nl.overheid.moz.nmc.lifecycle.NotificatieStatus;
import nl.overheid.moz.nmc.lifecycle.PogingStatus;
import nl.overheid.moz.nmc.lifecycle.Reden;

/**
 * The outcome rules of design §7.3 as one pure function: what a receipt does to its attempt and
 * notification. No I/O, so it is tested exhaustively; {@link ReceiptProcessor} applies the {@link Decision}
 * under the notification's lock.
 */
public final class ReceiptRules {

    private ReceiptRules() {}

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
    public record Situation(
            NotificatieStatus notificatie,
            int pogingNummer,
            PogingStatus poging,
            boolean olderThanApplied,
            ReceiptStatus receipt,
            boolean basisOfBezorgd,
            boolean withinMebvPeriod,
            boolean expired) {}

    /** What a receipt does. Each kind reads like a rule of the design. */
    public sealed interface Decision {

        /** Recorded on the attempt, nothing changes: older than the last applied one, or outside the rules. */
        record RecordOnly() implements Decision {}

        /** A status the NMC does not know: recorded and counted; reconciliation goes on. */
        record UnknownStatus() implements Decision {}

        /**
         * delivered on any attempt (running or not, also under a duplicate id) of a verzonden or
         * bezorgstatus-onbekend notification: attempt bezorgd, notification bezorgd, a finalise task planned.
         */
        record Delivered() implements Decision {}

        /**
         * A new delivered on the attempt bezorgd rests on, within the MEBV period: the delivery proof moves,
         * the finalise task is replaced.
         */
        record DeliveredAgain() implements Decision {}

        /**
         * The attempt failed and the notification ends ({@code naar}, {@code reden}). From bezorgd (a
         * failure within the MEBV period) the open finalise task is completed.
         */
        record Ends(PogingStatus outcome, NotificatieStatus to, Reden reden, boolean fromBezorgd) implements Decision {}

        /**
         * The first attempt failed temporarily or technically before geldig_tot: a resend is planned. From
         * bezorgd the notification goes back to verzonden and the finalise task is completed.
         */
        record Resend(PogingStatus outcome, boolean fromBezorgd) implements Decision {}

        /** The attempt's new status; {@code null}: it keeps its status. */
        default PogingStatus outcome() {
            return switch (this) {
                case Delivered d -> PogingStatus.BEZORGD;
                case DeliveredAgain d -> PogingStatus.BEZORGD;
                case Ends e -> e.outcome();
                case Resend r -> r.outcome();
                case RecordOnly r -> null;
                case UnknownStatus u -> null;
            };
        }

        /** The notification's transition target; {@code null}: no transition. */
        default NotificatieStatus to() {
            return switch (this) {
                case Delivered d -> NotificatieStatus.BEZORGD;
                case Ends e -> e.to();
                case Resend r -> r.fromBezorgd() ? NotificatieStatus.VERZONDEN : null;
                default -> null;
            };
        }

        /** The reason that goes with the transition; {@code null}: none. */
        default Reden reden() {
            return this instanceof Ends e ? e.reden() : null;
        }

        default boolean planResend() {
            return this instanceof Resend;
        }

        default boolean planFinalise() {
            return this instanceof Delivered || this instanceof DeliveredAgain;
        }

        default boolean completeFinalise() {
            return switch (this) {
                case DeliveredAgain d -> true;
                case Ends e -> e.fromBezorgd();
                case Resend r -> r.fromBezorgd();
                default -> false;
            };
        }

        default boolean recordOnly() {
            return this instanceof RecordOnly || this instanceof UnknownStatus;
        }
    }

    /**
     * The moment a receipt counts for: its own completed_at, capped at the system clock (a NotifyNL clock
     * ahead of ours must not put a receipt beyond every later one); a receipt without one counts as now.
     */
    public static Instant effectiveCompletedAt(Instant completedAt, Instant now) {
        return completedAt == null || completedAt.isAfter(now) ? now : completedAt;
    }

    /** Whether a receipt completed at {@code completedAt} lies within the MEBV period of the attempt's last one. */
    public static boolean withinMebvPeriod(Instant lastApplied, Instant completedAt, Duration mebvPeriod) {
        return lastApplied == null || !completedAt.isAfter(lastApplied.plus(mebvPeriod));
    }

    public static Decision judge(Situation s) {
        if (s.receipt() == ReceiptStatus.UNKNOWN) {
            return new Decision.UnknownStatus();
        }
        if (s.olderThanApplied()) {
            return new Decision.RecordOnly();
        }
        // "delivered op welke poging dan ook, ook op een duplicaat-id: bezorgd" (ADR 0024): also on an attempt
        // that no longer runs (attempt 1 after its temporary-failure, while the resend waits). The resend then
        // completes at its start without sending.
        if (s.receipt() == ReceiptStatus.DELIVERED
                && (s.notificatie() == NotificatieStatus.VERZONDEN
                        || s.notificatie() == NotificatieStatus.BEZORGSTATUS_ONBEKEND)) {
            return new Decision.Delivered();
        }
        if (s.poging().running()) {
            return onRunningPoging(s);
        }
        if (s.notificatie() == NotificatieStatus.BEZORGD
                && s.poging() == PogingStatus.BEZORGD
                && s.basisOfBezorgd()
                && s.withinMebvPeriod()) {
            return onDeliveredWithinPeriod(s);
        }
        return new Decision.RecordOnly();
    }

    /** The rules for a running attempt (verzonden or onbekend). */
    private static Decision onRunningPoging(Situation s) {
        return switch (s.notificatie()) {
            case VERZONDEN ->
                switch (s.receipt()) {
                    case DELIVERED -> new Decision.Delivered();
                    case PERMANENT_FAILURE -> unreachable(s, false);
                    case TEMPORARY_FAILURE, TECHNICAL_FAILURE -> resendOrEnd(s, false);
                    case UNKNOWN -> throw new AssertionError("handled above");
                };
            // Only a late delivered or permanent-failure corrects bezorgstatus-onbekend.
            case BEZORGSTATUS_ONBEKEND ->
                switch (s.receipt()) {
                    case DELIVERED -> new Decision.Delivered();
                    case PERMANENT_FAILURE -> unreachable(s, false);
                    default -> new Decision.RecordOnly();
                };
            default -> new Decision.RecordOnly();
        };
    }

    /** A failure on the attempt bezorgd rests on, within the MEBV period, follows the rules as if it still ran. */
    private static Decision onDeliveredWithinPeriod(Situation s) {
        return switch (s.receipt()) {
            case DELIVERED -> new Decision.DeliveredAgain();
            case PERMANENT_FAILURE -> unreachable(s, true);
            case TEMPORARY_FAILURE -> resendOrEnd(s, true);
            default -> new Decision.RecordOnly();
        };
    }

    /** permanent-failure: niet-bezorgbaar, reden onbereikbaar. */
    private static Decision unreachable(Situation s, boolean fromBezorgd) {
        return new Decision.Ends(
                outcome(s.receipt()), NotificatieStatus.NIET_BEZORGBAAR, Reden.ONBEREIKBAAR, fromBezorgd);
    }

    /**
     * temporary/technical failure: on attempt 2 the notification ends (temporary: niet-bezorgbaar, technical:
     * technisch-mislukt); on attempt 1 a resend, or verlopen once geldig_tot has passed.
     */
    private static Decision resendOrEnd(Situation s, boolean fromBezorgd) {
        PogingStatus outcome = outcome(s.receipt());
        if (s.pogingNummer() >= 2) {
            return s.receipt() == ReceiptStatus.TEMPORARY_FAILURE
                    ? new Decision.Ends(outcome, NotificatieStatus.NIET_BEZORGBAAR, Reden.ONBEREIKBAAR, fromBezorgd)
                    : new Decision.Ends(outcome, NotificatieStatus.TECHNISCH_MISLUKT, Reden.TECHNISCH, fromBezorgd);
        }
        if (s.expired()) {
            return new Decision.Ends(outcome, NotificatieStatus.VERLOPEN, Reden.VERLOPEN, fromBezorgd);
        }
        return new Decision.Resend(outcome, fromBezorgd);
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
