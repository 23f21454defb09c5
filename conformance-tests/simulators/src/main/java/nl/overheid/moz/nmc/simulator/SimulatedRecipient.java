package nl.overheid.moz.nmc.simulator;

/**
 * What happens to an e-mail after the 201, chosen by the recipient address (compared case-insensitively).
 *
 * <p>The first three mimic Notify's test API key ("research mode": {@code app/celery/research_mode_tasks.py}
 * fakes the provider's receipt for these addresses). The last two are simulator-only, to exercise the NMC's
 * reconciliation and receipt ordering.
 */
enum SimulatedRecipient {

    /** Any other address: {@code sending}, then {@code delivered} with a callback after the callback delay. */
    DELIVERED("delivered", true, 1),

    /** {@value NotifyNlSimulator#TEMP_FAIL_ADDRESS}: {@code temporary-failure} (soft bounce), with a callback. */
    TEMPORARY_FAILURE("temporary-failure", true, 1),

    /** {@value NotifyNlSimulator#PERM_FAIL_ADDRESS}: {@code permanent-failure} (hard bounce), with a callback. */
    PERMANENT_FAILURE("permanent-failure", true, 1),

    /**
     * {@value NotifyNlSimulator#NO_CALLBACK_ADDRESS} (simulator-only): Notify's own send path fails. The
     * notification stays {@code created} (never handed to a provider, so {@code sent_at} stays null) and turns
     * {@code technical-failure} after the callback delay, and Notify sends <em>no</em> callback: only a status
     * query (the NMC's reconciliation) finds the outcome.
     */
    TECHNICAL_FAILURE_WITHOUT_CALLBACK("technical-failure", false, 0),

    /**
     * {@value NotifyNlSimulator#SLOW_CALLBACK_ADDRESS} (simulator-only): {@code delivered} after the callback
     * delay like any address, but the callback leaves only after ten times the delay (a backed-up callback
     * queue), so a status query sees the outcome before the receipt arrives.
     */
    DELIVERED_WITH_SLOW_CALLBACK("delivered", true, 10),

    /**
     * {@value NotifyNlSimulator#PENDING_ADDRESS} (simulator-only): handed to a provider that never reports, so
     * it stays {@code sending} with no callback until a test gives it a later outcome
     * ({@link NotifyNlSimulator#laterOutcome}) or NotifyNL forgets it; for reconciliation until NotifyNL's
     * retention ends.
     */
    NEVER_COMPLETES("sending", false, 0),

    /**
     * {@value NotifyNlSimulator#COMPLAINT_ADDRESS} (simulator-only): {@code delivered} with its receipt, and then a
     * complaint callback (the recipient marked it as spam), which changes no status.
     */
    DELIVERED_WITH_COMPLAINT("delivered", true, 1);

    private final String finalStatus;
    private final boolean sendsCallback;
    private final int callbackDelayFactor;

    SimulatedRecipient(String finalStatus, boolean sendsCallback, int callbackDelayFactor) {
        this.finalStatus = finalStatus;
        this.sendsCallback = sendsCallback;
        this.callbackDelayFactor = callbackDelayFactor;
    }

    static SimulatedRecipient forAddress(String emailAddress) {
        String address = EmailAddresses.normalise(emailAddress);
        if (address.equalsIgnoreCase(NotifyNlSimulator.TEMP_FAIL_ADDRESS)) {
            return TEMPORARY_FAILURE;
        }
        if (address.equalsIgnoreCase(NotifyNlSimulator.PERM_FAIL_ADDRESS)) {
            return PERMANENT_FAILURE;
        }
        if (address.equalsIgnoreCase(NotifyNlSimulator.NO_CALLBACK_ADDRESS)) {
            return TECHNICAL_FAILURE_WITHOUT_CALLBACK;
        }
        if (address.equalsIgnoreCase(NotifyNlSimulator.SLOW_CALLBACK_ADDRESS)) {
            return DELIVERED_WITH_SLOW_CALLBACK;
        }
        if (address.equalsIgnoreCase(NotifyNlSimulator.PENDING_ADDRESS)) {
            return NEVER_COMPLETES;
        }
        if (address.equalsIgnoreCase(NotifyNlSimulator.COMPLAINT_ADDRESS)) {
            return DELIVERED_WITH_COMPLAINT;
        }
        return DELIVERED;
    }

    /** Notify's status once the outcome is known. */
    String finalStatus() {
        return finalStatus;
    }

    /** Notify's status before the outcome: {@code sending} once handed to a provider, else {@code created}. */
    String pendingStatus() {
        return reachesProvider() ? "sending" : "created";
    }

    /** Whether the e-mail is handed to a provider (and so gets a {@code sent_at}). */
    boolean reachesProvider() {
        return this != TECHNICAL_FAILURE_WITHOUT_CALLBACK;
    }

    boolean sendsCallback() {
        return sendsCallback;
    }

    /** The callback leaves after this many callback delays. */
    int callbackDelayFactor() {
        return callbackDelayFactor;
    }
}
