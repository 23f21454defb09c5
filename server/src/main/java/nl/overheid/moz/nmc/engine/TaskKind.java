package nl.overheid.moz.nmc.engine;

import java.util.Arrays;
import nl.overheid.moz.nmc.db.DbValue;

/**
 * The kinds of side-effect work (design §6): the vocabulary of {@code taak.soort}. Which package handles a
 * kind is the wiring's business; the engine only claims, leases and retries them. The periodic duties (control,
 * partitions, retention, re-wrapping) are not task rows: they run as {@link Duty}s.
 */
public enum TaskKind implements DbValue {
    /** First send and resend of a notification ({@code sending/SendPipeline}); claimed against the send budget. */
    VERZENDEN("verzenden"),
    /** Apply the stored NotifyNL receipts of one attempt ({@code receipts/ReceiptProcessor}). */
    VERWERKEN("verwerken"),
    /** Ask NotifyNL for the status of an attempt without a receipt ({@code receipts/Reconciler}). */
    RECONCILIEREN("reconcilieren"),
    /** Finalise a delivered notification after the MEBV period ({@code receipts/Finaliser}). */
    VASTSTELLEN("vaststellen"),
    /** Report an e-mail address invalid at the Profielservice, centralised regime ({@code sending/InvalidAddressReporter}). */
    ONGELDIG_MELDEN("ongeldig-melden"),
    /** Push a DV's events to its webhook, one long-lived task per DV ({@code webhook/WebhookDelivery}). */
    TERUGKOPPELEN("terugkoppelen"),
    /** Erase a notification's data key a fixed period after its terminal status ({@code retention/Erasure}). */
    WISSEN("wissen");

    private final String value;

    TaskKind(String value) {
        this.value = value;
    }

    @Override
    public String dbValue() {
        return value;
    }

    public static TaskKind of(String value) {
        return Arrays.stream(values())
                .filter(k -> k.value.equals(value))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown task kind " + value));
    }

    @Override
    public String toString() {
        return value;
    }
}
