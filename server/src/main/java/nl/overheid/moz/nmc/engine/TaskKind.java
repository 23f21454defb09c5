package nl.overheid.moz.nmc.engine;

import java.util.Arrays;
import nl.overheid.moz.nmc.db.Sql;

/** The kinds of side-effect work (design §6). */
public enum TaskKind implements Sql.DbValue {
    /** First send and resend of a notification; claimed against the send budget. */
    VERZENDEN("verzenden"),
    /** Apply one stored NotifyNL receipt. */
    VERWERKEN("verwerken"),
    /** Ask NotifyNL for the status of an attempt without a receipt. */
    RECONCILIEREN("reconcilieren"),
    /** Finalise a delivered notification after the MEBV period. */
    VASTSTELLEN("vaststellen"),
    ONGELDIG_MELDEN("ongeldig-melden"),
    TERUGKOPPELEN("terugkoppelen"),
    /** Periodic check that every live notification has its task. */
    CONTROLE("controle"),
    ONDERHOUD("onderhoud"),
    WISSEN("wissen"),
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
