package nl.overheid.moz.nmc.bench;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One measured figure beside its baseline from the same run.
 *
 * @param name          what was measured, e.g. {@code "10 DVs, 32 clients"}
 * @param value         the NMC's figure
 * @param unit          its unit
 * @param baseline      the baseline's figure (null when the benchmark has none for this figure)
 * @param baselineName  what the baseline is, e.g. {@code "pgbench, acceptance.pgbench"}
 * @param ratio         how the figure relates to the baseline as the target states it (value / baseline), or null
 * @param target        the target as text, e.g. {@code "ratio ≥ 0.5"}; null when the figure is informative only
 * @param met           whether the target is met; null without a target
 * @param details       everything else worth keeping (percentiles, counts, errors)
 */
public record Figure(
        String name,
        Double value,
        String unit,
        Double baseline,
        String baselineName,
        Double ratio,
        String target,
        Boolean met,
        Map<String, Object> details) {

    public static Builder of(String name, double value, String unit) {
        return new Builder(name, value, unit);
    }

    /** Builds a figure; details keep their insertion order in the JSON. */
    public static final class Builder {
        private final String name;
        private final double value;
        private final String unit;
        private Double baseline;
        private String baselineName;
        private Double ratio;
        private String target;
        private Boolean met;
        private final Map<String, Object> details = new LinkedHashMap<>();

        private Builder(String name, double value, String unit) {
            this.name = name;
            this.value = value;
            this.unit = unit;
        }

        /** The baseline; the ratio becomes value / baseline. */
        public Builder baseline(double baseline, String baselineName) {
            this.baseline = baseline;
            this.baselineName = baselineName;
            this.ratio = baseline == 0 ? null : value / baseline;
            return this;
        }

        /** The target and whether it is met. */
        public Builder target(String target, boolean met) {
            this.target = target;
            this.met = met;
            return this;
        }

        public Builder detail(String key, Object detail) {
            details.put(key, detail);
            return this;
        }

        public Builder details(Map<String, ?> more) {
            details.putAll(more);
            return this;
        }

        public Figure build() {
            return new Figure(
                    name, value, unit, baseline, baselineName, ratio, target, met, new LinkedHashMap<>(details));
        }
    }
}
