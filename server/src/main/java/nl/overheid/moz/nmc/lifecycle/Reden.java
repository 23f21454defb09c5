package nl.overheid.moz.nmc.lifecycle;

import java.util.Arrays;
import nl.overheid.moz.nmc.db.DbValue;

/** The coarse reason a DV sees with a status. */
public enum Reden implements DbValue {
    ONBEREIKBAAR("onbereikbaar"),
    GEEN_CONTACTGEGEVENS("geen-contactgegevens"),
    VERLOPEN("verlopen"),
    GEANNULEERD("geannuleerd"),
    TECHNISCH("technisch");

    private final String value;

    Reden(String value) {
        this.value = value;
    }

    @Override
    public String dbValue() {
        return value;
    }

    public static Reden ofNullable(String value) {
        if (value == null) {
            return null;
        }
        return Arrays.stream(values())
                .filter(r -> r.value.equals(value))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown reden " + value));
    }

    @Override
    public String toString() {
        return value;
    }
}
