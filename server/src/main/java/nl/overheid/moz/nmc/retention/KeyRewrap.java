package nl.overheid.moz.nmc.retention;

import io.helidon.dbclient.DbTransaction;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.engine.Duty;
import nl.overheid.moz.nmc.observe.NmcMetrics;
import nl.overheid.moz.nmc.privacy.Envelope;

/**
 * KEK rotation (design §9): new notifications are sealed under the current KEK version; this duty re-wraps
 * the data keys of older rows under it in small batches — the ciphertexts are not touched — each batch one
 * short transaction that skips rows a send or receipt holds right now. It publishes how many rows still use
 * each version ({@code nmc_kek_rows}); once a version has none, it can be removed from the configuration.
 * At start, {@link #requireConfiguredVersions} refuses a configuration that lacks a version rows still use.
 */
public final class KeyRewrap implements Duty {

    private static final Logger LOG = Logger.getLogger(KeyRewrap.class.getName());
    /** A wrong KEK makes every row of its version unreadable; the skip list stops growing there. */
    private static final int MAX_UNREADABLE = 1_000;

    private final Database database;
    private final RetentionRepository retention;
    private final Envelope envelope;
    private final NmcMetrics metrics;
    private final int batchSize;
    private final Duration timeBudget;
    /** Rows whose data key did not unwrap, skipped by this instance; few, unless a KEK is misconfigured. */
    private final Set<UUID> unreadable = ConcurrentHashMap.newKeySet();

    public KeyRewrap(
            Database database,
            RetentionRepository retention,
            Envelope envelope,
            NmcMetrics metrics,
            int batchSize,
            Duration timeBudget) {
        this.database = database;
        this.retention = retention;
        this.envelope = envelope;
        this.metrics = metrics;
        this.batchSize = batchSize;
        this.timeBudget = timeBudget;
        metrics.kekRowsUnreadable(0);
    }

    @Override
    public String name() {
        return "KEK re-wrap";
    }

    @Override
    public int runOnce() {
        long deadline = System.nanoTime() + timeBudget.toNanos();
        int current = envelope.currentKekVersion();
        int done = 0;
        int step;
        int[] rewrapped = new int[1];
        do {
            rewrapped[0] = 0;
            step = database.inTransaction(tx -> {
                List<RetentionRepository.WrappedKey> keys =
                        retention.lockOldKeys(tx, current, envelope.kekVersions(), unreadable, batchSize);
                for (RetentionRepository.WrappedKey key : keys) {
                    if (rewrap(tx, key)) {
                        rewrapped[0]++;
                    }
                }
                return keys.size();
            });
            done += rewrapped[0];
            // A batch of skipped rows only: the rest waits for the next round (with the list full, it repeats).
        } while (step == batchSize && rewrapped[0] > 0 && System.nanoTime() < deadline);
        if (!unreadable.isEmpty()) {
            unreadable.retainAll(database.inTransaction(tx -> retention.stillOld(tx, Set.copyOf(unreadable), current)));
        }
        metrics.kekRowsUnreadable(unreadable.size());
        Map<Integer, Long> perVersion = rowsPerVersion();
        perVersion.forEach(metrics::kekRows);
        envelope.kekVersions().forEach(version -> metrics.kekRows(version, perVersion.getOrDefault(version, 0L)));
        if (done > 0) {
            int total = done;
            LOG.info(() -> "re-wrapped " + total + " data key(s) under KEK version " + current + "; rows per version: "
                    + perVersion);
        }
        return done;
    }

    /**
     * Re-wraps one data key; one that does not unwrap is skipped from now on and counted, as rolling back the batch
     * for it would keep every other row under the old version for good.
     */
    private boolean rewrap(DbTransaction tx, RetentionRepository.WrappedKey key) {
        Envelope.Rewrapped rewrapped;
        try {
            rewrapped = envelope.rewrap(key.notificatie(), key.wrapped(), key.kekVersion());
        } catch (Envelope.DecryptionFailed e) {
            if (unreadable.size() < MAX_UNREADABLE && unreadable.add(key.notificatie())) {
                LOG.warning(() -> "notification " + key.notificatie() + ": its data key does not unwrap under KEK "
                        + "version " + key.kekVersion() + "; the re-wrap skips it (nmc_kek_rows_unreadable)");
            }
            return false;
        }
        retention.rewrap(tx, key.notificatie(), rewrapped.wrappedKey(), rewrapped.kekVersion());
        return true;
    }

    /** Tries the rows skipped as unreadable again in the next round (after an operator restored one). */
    public void retryUnreadable() {
        unreadable.clear();
    }

    /** The KEK version new data keys are wrapped under, the one the re-wrap moves rows to. */
    public int currentVersion() {
        return envelope.currentKekVersion();
    }

    /** Rows that still have a data key, per KEK version. */
    public Map<Integer, Long> rowsPerVersion() {
        return database.inTransaction(retention::countPerKek);
    }

    /** Refuses to start when rows use a KEK version the configuration no longer has: they could not be sent. */
    public void requireConfiguredVersions() {
        Map<Integer, Long> inUse = rowsPerVersion();
        inUse.keySet().stream()
                .filter(version -> !envelope.kekVersions().contains(version))
                .findFirst()
                .ifPresent(version -> {
                    throw new IllegalStateException("privacy.kek: " + inUse.get(version) + " notification(s) still "
                            + "use KEK version " + version + ", which is not configured; keep it until the re-wrap "
                            + "has moved them (nmc_kek_rows)");
                });
    }
}
