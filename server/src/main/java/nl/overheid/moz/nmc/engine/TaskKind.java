package nl.overheid.moz.nmc.engine;

import java.util.Arrays;
import nl.overheid.moz.nmc.db.DbValue;

/**
 * The kinds of side-effect work (design §6): the vocabulary of {@code taak.soort}. Which package handles a
 * kind is the wiring's business; the engine only claims, leases and retries them.
 */
public enum TaskKind implements DbValue {
    /** First send and resend of a notification; claimed against the send budget. */
    VERZENDEN("verzenden"),
    /** Apply one stored NotifyNL receipt. */
    VERWERKEN("verwerken"),
    /** Ask NotifyNL for the status of an attempt without a receipt. */
    RECONCILIEREN("reconcilieren"),
    /** Finalise a delivered notification after the MEBV period. */
    VASTSTELLEN("vaststellen"),
    /** Report an e-mail address invalid at the Profielservice (centralised regime; not built yet). */
    ONGELDIG_MELDEN("ongeldig-melden"),
    /** Push a DV's events to its webhook (per DV; not built yet). */
    TERUGKOPPELEN("terugkoppelen"),
    /** Reserved: the control duty runs as a periodic agent, not as a task row. */
    CONTROLE("controle"),
    /** Maintenance of partitions and retention (not built yet as a task). */
    ONDERHOUD("onderhoud"),
    /** Erase a notification's data key (not built yet). */
    WISSEN("wissen"),
    /** Re-wrap data keys under a new KEK (not built yet). */
    HERWRAPPEN("herwrappen");

    private final String value;

    TaskKind(String value) {
        this.value = value;
    }

    @Override
    public String dbValue() {
        return value;
    }

    public static TaskKind of(String value) {
        return Arrays.stream(values()).filter(k -> k.value.equals(value)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown task kind " + value));
    }

    @Override
    public String toString() {
        return value;
    }
}
