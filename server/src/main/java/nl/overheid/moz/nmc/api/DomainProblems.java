package nl.overheid.moz.nmc.api;

import nl.overheid.moz.nmc.refusal.Refusal;

/**
 * The one place where the domain's refusals become RFC 9457 problems: the domain speaks in its own terms,
 * only this class knows which status, problem type and Dutch text each refusal has. The switch is exhaustive
 * over the sealed {@link Refusal}, so a new refusal does not compile until it has its problem; the routing's
 * one error handler for {@code Refusal} sends what this returns.
 */
public final class DomainProblems {

    private DomainProblems() {}

    public static ProblemException of(Refusal refusal) {
        return switch (refusal) {
            case Refusal.BerichttypeNotAllowed r ->
                ProblemException.invalid(
                        "/berichttype", "unknown", "Deze dienstverlener mag dit berichttype niet versturen.");
            case Refusal.BerichttypeUnknown r ->
                ProblemException.invalid("/berichttype", "unknown", "Dit berichttype bestaat niet.");
            case Refusal.ValidUntilPassed r ->
                ProblemException.invalid("/geldigTot", "past", "geldigTot ligt niet in de toekomst.");
            case Refusal.ValidUntilTooFar r ->
                ProblemException.invalid("/geldigTot", "maximum", "geldigTot ligt meer dan een jaar in de toekomst.");
            case Refusal.IdentificatieTypeNotAllowed r ->
                ProblemException.invalid(
                        "/identificatieType",
                        "not-allowed",
                        "Deze dienstverlener mag dit identificatietype niet gebruiken.");
            case Refusal.IdentificatieNummerInvalid r ->
                ProblemException.invalid(
                        "/identificatieNummer",
                        r.code(),
                        r.code().equals("elfproef")
                                ? "Dit nummer voldoet niet aan de elfproef."
                                : "Een KVK-nummer heeft 8 cijfers, een RSIN of BSN 9.");
            case Refusal.PersonalisationAmbiguous r ->
                personalisation(
                        r.fields(),
                        "duplicate",
                        "NotifyNL leest deze velden als één veld (hoofdletters, spaties, _ en - tellen niet).");
            case Refusal.PersonalisationMissing r ->
                personalisation(
                        r.fields(),
                        "required",
                        "Het NotifyNL-template van dit berichttype vraagt om dit personalisatieveld.");
            case Refusal.Several r ->
                ProblemException.invalid(r.each().stream()
                        .flatMap(each -> of(each).errors().stream())
                        .toList());
            case Refusal.QuotaExhausted r ->
                ProblemException.quota(Math.max(1, r.retryAfter().toSeconds()));
            case Refusal.NotFound r -> ProblemException.notFound();
            case Refusal.StoreUnreachable r ->
                ProblemException.unavailableItem(ProblemResponses.RETRY_AFTER_UNAVAILABLE_SECONDS);
            case Refusal.NotCancellable r ->
                ProblemException.notCancellable(
                        "Alleen een notificatie met status aangenomen kan worden geannuleerd; deze heeft status "
                                + r.status() + ".");
            case Refusal.CursorUnreadable r ->
                ProblemException.invalid("cursor", "format", "De cursor is geen cursor van deze feed.");
            case Refusal.CursorNotRecognised r ->
                ProblemException.cursorGone(
                        ProblemException.TYPE_CURSOR_NOT_RECOGNISED,
                        "Cursor niet herkend.",
                        "De cursor wordt niet meer herkend; begin opnieuw zonder cursor.");
            case Refusal.CursorOtherEpoch r ->
                ProblemException.cursorGone(
                        ProblemException.TYPE_CURSOR_OTHER_EPOCH,
                        "Cursor van een andere epoch.",
                        "De cursor hoort bij een eerdere stand van het eventlog; begin opnieuw zonder cursor.");
            case Refusal.CursorTooOld r ->
                ProblemException.cursorGone(
                        ProblemException.TYPE_CURSOR_EXPIRED,
                        "Cursor verlopen.",
                        "De cursor is ouder dan de maximale cursorleeftijd; begin opnieuw zonder cursor.");
            case Refusal.CursorPartitionDropped r ->
                ProblemException.cursorGone(
                        ProblemException.TYPE_CURSOR_PARTITION_DROPPED,
                        "Cursor wijst naar verwijderde events.",
                        "De cursor wijst naar een deel van het eventlog dat na de bewaartermijn is verwijderd; "
                                + "begin opnieuw zonder cursor.");
            case Refusal.CursorEventGone r ->
                ProblemException.cursorGone(
                        ProblemException.TYPE_CURSOR_EVENT_UNKNOWN,
                        "Cursor wijst naar onbekend event.",
                        "De cursor wijst naar een event dat niet (meer) bestaat; begin opnieuw zonder cursor.");
            case Refusal.RedenNotAdmitted r ->
                ProblemException.invalid(
                        "/reden",
                        "enum",
                        r.admitted().isEmpty()
                                ? "Bij status " + r.to() + " hoort geen reden."
                                : "Bij status " + r.to() + " hoort reden " + String.join(" of ", r.admitted()) + ".");
            case Refusal.TransitionNotAllowed r ->
                ProblemException.conflict("De overgang van " + r.from() + " naar " + r.to()
                        + " is niet toegestaan; er is niets gewijzigd.");
            case Refusal.EpochMismatch r ->
                ProblemException.conflict("De cluster-epoch is " + r.current()
                        + ", niet de opgegeven huidigeEpoch; er is niets gewijzigd.");
            case Refusal.PepperRefused r ->
                ProblemException.conflict(
                        "Er is geen andere bruikbare versie van deze pepper geconfigureerd; configureer eerst de volgende.");
            case Refusal.InvalidRegistration r ->
                ProblemException.invalid(r.errors().stream()
                        .map(error -> new ProblemException.FieldError(error.field(), error.code(), error.reason()))
                        .toList());
        };
    }

    /** One error per personalisation field, named as a pointer into the body, never with its value. */
    private static ProblemException personalisation(java.util.List<String> fields, String code, String reason) {
        return ProblemException.invalid(fields.stream()
                .map(field ->
                        new ProblemException.FieldError("/personalisation/" + JsonPointers.escape(field), code, reason))
                .toList());
    }
}
