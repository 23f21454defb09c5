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
     * @param basisOfBezorgd   this attempt holds the delivery proof: the notification's bezorgd rests on its first
     *                         delivered ({@code poging.bezorgd_op})
     * @param withinMebvPeriod the receipt's completed_at lies within the MEBV period after that delivery proof
     * @param expired          geldig_tot has passed (no new attempt may start)
     * @param otherAttemptDelivered the notification's other attempt is bezorgd (a delivery recorded on it)
     */
    public record Situation(
            NotificatieStatus notificatie,
            int pogingNummer,
            PogingStatus poging,
            boolean olderThanApplied,
            ReceiptStatus receipt,
            boolean basisOfBezorgd,
            boolean withinMebvPeriod,
            boolean expired,
            boolean otherAttemptDelivered) {}

    /** What a receipt does. Each kind reads like a rule of the design. */
    public sealed interface Decision {

        /**
         * Kept as a receipt row only, nothing changes: older than the last one applied on its attempt (the attempt
         * already shows a later outcome).
         */
        record RecordOnly() implements Decision {}

        /** A status the NMC does not know: recorded and counted; reconciliation goes on. */
        record UnknownStatus() implements Decision {}

        /**
         * delivered on any attempt (running or not, also under a duplicate id) of a verzonden or
         * bezorgstatus-onbekend notification: attempt bezorgd, notification bezorgd, this delivery its proof, a
         * finalise task planned.
         */
        record Delivered() implements Decision {}

        /**
         * A repeated delivered on an attempt that is already bezorgd (under a duplicate NotifyNL id, say), or on the
         * attempt the proof rests on within the MEBV period: the first delivery is the proof, so the receipt row
         * (and a duplicate id) is all that is kept; neither the proof nor the attempt's time nor the finalise task
         * moves.
         */
        record DeliveredAgain() implements Decision {}

        /**
         * The attempt failed and the notification ends ({@code naar}, {@code reden}). From bezorgd (a
         * failure within the MEBV period) the open finalise task is completed and the proof undone.
         */
        record Ends(PogingStatus outcome, NotificatieStatus to, Reden reden, boolean fromBezorgd) implements Decision {}

        /**
         * The first attempt failed temporarily or technically before geldig_tot: a resend is planned. From
         * bezorgd the notification goes back to verzonden, the finalise task is completed and the proof undone.
         */
        record Resend(PogingStatus outcome, boolean fromBezorgd) implements Decision {}

        /**
         * Changes nothing for the notification (an attempt it does not rest on, after the MEBV period, a terminal
         * notification, a technical failure on bezorgd): recorded on its attempt ("op de poging vastgelegd",
         * ADR 0024): the attempt's status and time, and its reconciliation ends.
         */
        record Recorded(PogingStatus outcome) implements Decision {}

        /**
         * A failure within the MEBV period on the attempt the proof rests on, while the other attempt has a
         * recorded delivery: the failure is recorded, and bezorgd now rests on the other attempt's delivery (the
         * proof and the finalise task follow it); the notification stays bezorgd.
         */
        record ProofMoves(PogingStatus outcome) implements Decision {}

        /** The attempt's new status; {@code null}: it keeps its status (and its time). */
        default PogingStatus outcome() {
            return switch (this) {
                case Delivered d -> PogingStatus.BEZORGD;
                case DeliveredAgain d -> null;
                case Ends e -> e.outcome();
                case Resend r -> r.outcome();
                case Recorded r -> r.outcome();
                case ProofMoves p -> p.outcome();
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

        /** A finalise task is planned: for a new delivery proof (this one, or the other attempt's). */
        default boolean planFinalise() {
            return this instanceof Delivered || this instanceof ProofMoves;
        }

        default boolean completeFinalise() {
            return switch (this) {
                case Ends e -> e.fromBezorgd();
                case Resend r -> r.fromBezorgd();
                case ProofMoves p -> true;
                default -> false;
            };
        }

        /** The attempt's delivery proof is undone (a failure within the MEBV period on it). */
        default boolean clearsProof() {
            return completeFinalise();
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

    /**
     * Whether a receipt completed at {@code completedAt} lies within the MEBV period of the attempt's delivery
     * proof (its first delivered; {@code null}: none, then nothing bounds it).
     */
    public static boolean withinMebvPeriod(Instant deliveryProof, Instant completedAt, Duration mebvPeriod) {
        return deliveryProof == null || !completedAt.isAfter(deliveryProof.plus(mebvPeriod));
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
        // A late permanent-failure corrects bezorgstatus-onbekend from any attempt, like a late delivered: a late
        // temporary-failure recorded on the attempt before it no longer lets the attempt count as running.
        if (s.receipt() == ReceiptStatus.PERMANENT_FAILURE
                && s.notificatie() == NotificatieStatus.BEZORGSTATUS_ONBEKEND) {
            return unreachable(s, false);
        }
        if (s.poging().running() && s.notificatie() == NotificatieStatus.VERZONDEN) {
            return onRunningPoging(s);
        }
        if (!s.poging().running()
                && s.notificatie() == NotificatieStatus.BEZORGD
                && s.basisOfBezorgd()
                && s.withinMebvPeriod()) {
            return onDeliveredWithinPeriod(s);
        }
        return recorded(s);
    }

    /** The rules for a running attempt (verzonden or onbekend) of a verzonden notification. */
    private static Decision onRunningPoging(Situation s) {
        return switch (s.receipt()) {
            case DELIVERED -> new Decision.Delivered();
            case PERMANENT_FAILURE -> unreachable(s, false);
            case TEMPORARY_FAILURE, TECHNICAL_FAILURE -> resendOrEnd(s, false);
            case UNKNOWN -> throw new AssertionError("handled above");
        };
    }

    /**
     * On the attempt the proof rests on, within the MEBV period: a failure follows the rules as if the attempt
     * still ran, unless the other attempt has a recorded delivery, on which bezorgd then rests; a repeated
     * delivered changes nothing; a technical failure is recorded.
     */
    private static Decision onDeliveredWithinPeriod(Situation s) {
        return switch (s.receipt()) {
            case DELIVERED -> new Decision.DeliveredAgain();
            case PERMANENT_FAILURE ->
                s.otherAttemptDelivered()
                        ? new Decision.ProofMoves(PogingStatus.PERMANENT_MISLUKT)
                        : unreachable(s, true);
            case TEMPORARY_FAILURE ->
                s.otherAttemptDelivered()
                        ? new Decision.ProofMoves(PogingStatus.TIJDELIJK_MISLUKT)
                        : resendOrEnd(s, true);
            default -> recorded(s);
        };
    }

    /**
     * A receipt that changes nothing for the notification is recorded on its attempt; a repeated delivered on an
     * attempt already bezorgd changes nothing at all (the first delivery is the proof).
     */
    private static Decision recorded(Situation s) {
        return s.receipt() == ReceiptStatus.DELIVERED && s.poging() == PogingStatus.BEZORGD
                ? new Decision.DeliveredAgain()
                : new Decision.Recorded(outcome(s.receipt()));
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
            PogingStatus.Ending ending = outcome.endingAsLastAttempt();
            return new Decision.Ends(outcome, ending.status(), ending.reden(), fromBezorgd);
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
