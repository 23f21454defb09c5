package nl.overheid.moz.nmc.sending;

/**
 * A refusal of NotifyNL that is not the notification's fault: the template, the personalisation the template asks
 * for, the service's trial mode or permission, the API key or the service itself (ARCHITECTURE §7.4, "NotifyNL's answers").
 * Each has its error class, the value {@code taak.laatste_fout} keeps when such a send is postponed or parked (the
 * operator API filters on it) and the metrics' {@code fout} label; and a hint for the operator who fixes it.
 */
public enum SetupError {
    /** 400 {@code BadRequestError} "Template not found": the service has no such template. */
    TEMPLATE_NOT_FOUND(
            "notifynl-template-onbekend", "the berichttype's template does not exist at its NotifyNL service"),
    /** 400 "Template has been deleted": the template is archived at NotifyNL. */
    TEMPLATE_DELETED("notifynl-template-verwijderd", "the berichttype's template was deleted at NotifyNL"),
    /** 400 "… template is not suitable for email notification": an SMS, letter or messagebox template. */
    TEMPLATE_NOT_EMAIL("notifynl-template-geen-email", "the berichttype's template is not an e-mail template"),
    /** 400 "Missing personalisation: …": the template asks for a field the notification does not carry. */
    PERSONALISATION_MISSING(
            "notifynl-personalisatie-ontbreekt",
            "the template asks for personalisation the notification lacks (the template changed after acceptance)"),
    /** 400 "Your message is empty." or "Your message is too long. …". */
    CONTENT_INVALID("notifynl-inhoud-ongeldig", "NotifyNL refuses the rendered content (empty or too long)"),
    /** 400 "Can’t send to this recipient when service is in trial mode – …". */
    TRIAL_MODE("notifynl-proefmodus", "the NotifyNL service is in trial mode and sends only to its team"),
    /** 400 "Can’t send to this recipient using a team-only API key". */
    TEAM_KEY("notifynl-teamsleutel", "the service's API key is a team key, which sends only to its team"),
    /** 400 "Service is not allowed to send emails". */
    NO_EMAIL_PERMISSION("notifynl-geen-emailrecht", "the NotifyNL service may not send e-mail"),
    /** 403 {@code AuthError} "Invalid token: API key revoked". */
    KEY_REVOKED("notifynl-sleutel-ingetrokken", "the service's API key was revoked at NotifyNL"),
    /** 403 {@code AuthError} "Invalid token: service is archived". */
    SERVICE_ARCHIVED("notifynl-service-gearchiveerd", "the NotifyNL service is archived"),
    /** 401, or 403 {@code AuthError} "Invalid token: …" otherwise (key or service not found, no keys, …). */
    KEY_INVALID("notifynl-sleutel-ongeldig", "NotifyNL does not accept the service's API key"),
    /**
     * 400 {@code ValidationError} about anything but the address, "Invalid JSON supplied in POST data", or an
     * unknown {@code email_reply_to_id}: the NMC's request is wrong, which is a bug to fix, not the recipient.
     */
    REQUEST_INVALID("notifynl-verzoek-ongeldig", "NotifyNL refuses the NMC's request itself (a bug in the NMC)"),
    /** A 400 the NMC does not recognise: never taken for a bad address. */
    UNKNOWN_REFUSAL("notifynl-weigering-onbekend", "NotifyNL refused the e-mail for a reason the NMC does not know");

    private final String errorClass;
    private final String hint;

    SetupError(String errorClass, String hint) {
        this.errorClass = errorClass;
        this.hint = hint;
    }

    /** The error class a postponed or parked task keeps ({@code laatste_fout}) and the metrics' label. */
    public String errorClass() {
        return errorClass;
    }

    /** What is wrong, for the operator's log line (never NotifyNL's message, which may quote the address). */
    public String hint() {
        return hint;
    }

    /**
     * A 401 or 403 of the API key or the service: ADR 0024 counts it against the call, not the attempt ("de taak wordt
     * uitgesteld en herhaald", bounded only by geldig_tot), so such a send is never parked; the others are.
     */
    public boolean ofTheCall() {
        return this == KEY_REVOKED || this == SERVICE_ARCHIVED || this == KEY_INVALID;
    }

    /** The setup error of this error class, if it is one. */
    public static java.util.Optional<SetupError> ofErrorClass(String errorClass) {
        for (SetupError error : values()) {
            if (error.errorClass.equals(errorClass)) {
                return java.util.Optional.of(error);
            }
        }
        return java.util.Optional.empty();
    }
}
