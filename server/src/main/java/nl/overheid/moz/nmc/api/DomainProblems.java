package nl.overheid.moz.nmc.api;

import nl.overheid.moz.nmc.acceptance.AcceptanceRefused;
import nl.overheid.moz.nmc.acceptance.CancelRefused;
import nl.overheid.moz.nmc.operator.BeheerRefused;
import nl.overheid.moz.nmc.feed.CursorRefused;

/**
 * The one place where the domain's refusals become RFC 9457 problems: the domain speaks in its own terms,
 * only this class knows which status, problem type and Dutch text each refusal has. The switches are
 * exhaustive over the sealed refusals, so a new refusal does not compile until it has its problem.
 */
public final class DomainProblems {

    private DomainProblems() {
    }

    public static ProblemException of(AcceptanceRefused refused) {
        return switch (refused) {
            case AcceptanceRefused.BerichttypeNotAllowed r -> ProblemException.invalid("/berichttype", "unknown",
                    "Deze dienstverlener mag dit berichttype niet versturen.");
            case AcceptanceRefused.BerichttypeUnknown r -> ProblemException.invalid("/berichttype", "unknown",
                    "Dit berichttype bestaat niet.");
            case AcceptanceRefused.GeldigTotPassed r -> ProblemException.invalid("/geldigTot", "past",
                    "geldigTot ligt niet in de toekomst.");
            case AcceptanceRefused.GeldigTotTooFar r -> ProblemException.invalid("/geldigTot", "maximum",
                    "geldigTot ligt meer dan een jaar in de toekomst.");
            case AcceptanceRefused.QuotaExhausted r -> ProblemException.quota(Math.max(1, r.retryAfter().toSeconds()));
        };
    }

    public static ProblemException of(CancelRefused refused) {
        return switch (refused) {
            case CancelRefused.NotFound r -> ProblemException.notFound();
            case CancelRefused.NotCancellable r -> ProblemException.conflict(
                    "Alleen een notificatie met status aangenomen kan worden geannuleerd; deze heeft status "
                            + r.status() + ".");
        };
    }

    public static ProblemException of(CursorRefused refused) {
        return switch (refused) {
            case CursorRefused.Unreadable r -> ProblemException.invalid("cursor", "format",
                    "De cursor is geen cursor van deze feed.");
            case CursorRefused.NotRecognised r -> ProblemException.cursorGone(
                    ProblemException.TYPE_CURSOR_NOT_RECOGNISED, "Cursor niet herkend.",
                    "De cursor wordt niet meer herkend; begin opnieuw zonder cursor.");
            case CursorRefused.OtherEpoch r -> ProblemException.cursorGone(
                    ProblemException.TYPE_CURSOR_OTHER_EPOCH, "Cursor van een andere epoch.",
                    "De cursor hoort bij een eerdere stand van het eventlog; begin opnieuw zonder cursor.");
            case CursorRefused.TooOld r -> ProblemException.cursorGone(
                    ProblemException.TYPE_CURSOR_EXPIRED, "Cursor verlopen.",
                    "De cursor is ouder dan de maximale cursorleeftijd; begin opnieuw zonder cursor.");
            case CursorRefused.PartitionDropped r -> ProblemException.cursorGone(
                    ProblemException.TYPE_CURSOR_PARTITION_DROPPED, "Cursor wijst naar verwijderde events.",
                    "De cursor wijst naar een deel van het eventlog dat na de bewaartermijn is verwijderd; "
                            + "begin opnieuw zonder cursor.");
            case CursorRefused.EventGone r -> ProblemException.cursorGone(
                    ProblemException.TYPE_CURSOR_EVENT_UNKNOWN, "Cursor wijst naar onbekend event.",
                    "De cursor wijst naar een event dat niet (meer) bestaat; begin opnieuw zonder cursor.");
        };
    }

    public static ProblemException of(BeheerRefused refused) {
        return switch (refused) {
            case BeheerRefused.NotFound r -> ProblemException.notFound();
            case BeheerRefused.TransitionNotAllowed r -> ProblemException.conflict(
                    "De overgang van " + r.from() + " naar " + r.to() + " is niet toegestaan; er is niets gewijzigd.");
            case BeheerRefused.EpochMismatch r -> ProblemException.conflict(
                    "De cluster-epoch is " + r.current() + ", niet de opgegeven huidigeEpoch; er is niets gewijzigd.");
            case BeheerRefused.PepperRefused r -> ProblemException.conflict(
                    "Er is geen andere bruikbare versie van deze pepper geconfigureerd; configureer eerst de volgende.");
            case BeheerRefused.InvalidRegistration r -> ProblemException.invalid(r.errors().stream()
                    .map(error -> new ProblemException.FieldError(error.field(), error.code(), error.reason()))
                    .toList());
        };
    }
}
