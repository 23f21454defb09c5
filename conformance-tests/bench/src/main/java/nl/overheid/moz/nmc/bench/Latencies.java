package nl.overheid.moz.nmc.bench;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/** Latencies in microseconds (HdrHistogram, 3 significant digits, up to 10 minutes). */
public final class Latencies {

    private static final long HIGHEST = TimeUnit.MINUTES.toMicros(10);

    private final Histogram histogram = new Histogram(HIGHEST, 3);

    /** Records one latency; nanoseconds in, kept as microseconds. */
    public synchronized void recordNanos(long nanos) {
        recordMicros(Math.max(1, nanos / 1000));
    }

    public synchronized void recordMicros(long micros) {
        histogram.recordValue(Math.min(Math.max(1, micros), HIGHEST));
    }

    public synchronized void add(Latencies other) {
        synchronized (other) {
            histogram.add(other.histogram);
        }
    }

    public synchronized long count() {
        return histogram.getTotalCount();
    }

    /** The percentile in milliseconds (0 when empty). */
    public synchronized double percentileMillis(double percentile) {
        return histogram.getTotalCount() == 0 ? 0 : histogram.getValueAtPercentile(percentile) / 1000.0;
    }

    public synchronized double maxMillis() {
        return histogram.getTotalCount() == 0 ? 0 : histogram.getMaxValue() / 1000.0;
    }

    public synchronized double meanMillis() {
        return histogram.getTotalCount() == 0 ? 0 : histogram.getMean() / 1000.0;
    }

    /** p50, p90, p99, max and mean in milliseconds, under {@code prefix}. */
    public Map<String, Object> summary(String prefix) {
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put(prefix + "P50Ms", round(percentileMillis(50)));
        summary.put(prefix + "P90Ms", round(percentileMillis(90)));
        summary.put(prefix + "P99Ms", round(percentileMillis(99)));
        summary.put(prefix + "MaxMs", round(maxMillis()));
        summary.put(prefix + "MeanMs", round(meanMillis()));
        return summary;
    }

    static double round(double value) {
        return Math.round(value * 100) / 100.0;
    }
}
