package nl.overheid.moz.nmc.retention;

import io.helidon.dbclient.DbTransaction;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import nl.overheid.moz.nmc.db.DbTypes;
import nl.overheid.moz.nmc.db.Statement;

/**
 * The SQL of the privacy lifecycle: erasing and re-wrapping a notification's data key, planning erasure tasks
 * when they are due (or at once under a compromised pepper), deleting notifications past retention, and the
 * compromised pepper versions ({@code pepper_gecompromitteerd}). Batches and time budgets are the callers'.
 */
public final class RetentionRepository {

    private static final Statement NOTIFICATIE_ERASE = Statement.named("notificatieErase", """
            UPDATE notificatie SET datasleutel_gewrapt = NULL, ldv_betrokkene = NULL, batch_id = NULL WHERE id = :id
            """);

    private static final Statement NOTIFICATIE_OLD_KEYS = Statement.named("notificatieOldKeys", """
            SELECT id, datasleutel_gewrapt, kek_versie FROM notificatie
             WHERE kek_versie <> :current AND kek_versie = ANY (CAST(:held AS int[]))
               AND datasleutel_gewrapt IS NOT NULL AND id <> ALL (CAST(:skip AS uuid[]))
             LIMIT :batch
             FOR NO KEY UPDATE SKIP LOCKED
            """);

    /** Keys wrapped with AES-GCM before key wrap (60 bytes; V15's partial index finds them). */
    private static final Statement NOTIFICATIE_GCM_WRAPPED_KEYS = Statement.named("notificatieGcmWrappedKeys", """
            SELECT id, datasleutel_gewrapt, kek_versie FROM notificatie
             WHERE octet_length(datasleutel_gewrapt) = 60 AND id <> ALL (CAST(:skip AS uuid[]))
             LIMIT :batch
             FOR NO KEY UPDATE SKIP LOCKED
            """);

    private static final Statement NOTIFICATIE_REWRAP = Statement.named("notificatieRewrap", """
            UPDATE notificatie SET datasleutel_gewrapt = :wrapped, kek_versie = :kekVersie
             WHERE id = :id AND datasleutel_gewrapt IS NOT NULL
            """);

    /** Of the given rows, those whose data key still waits for the re-wrap. */
    private static final Statement NOTIFICATIE_STILL_OLD = Statement.named("notificatieStillOld", """
            SELECT id FROM notificatie
             WHERE id = ANY (CAST(:ids AS uuid[])) AND datasleutel_gewrapt IS NOT NULL
               AND (kek_versie <> :current OR octet_length(datasleutel_gewrapt) = 60)
            """);

    private static final Statement NOTIFICATIE_COUNT_PER_KEK = Statement.named("notificatieCountPerKek", """
            SELECT kek_versie, count(*) AS aantal FROM notificatie WHERE datasleutel_gewrapt IS NOT NULL
             GROUP BY kek_versie
            """);

    /*
     * The erasure timer is data on the notification: its terminal time (terminaal_sinds, written by the transition)
     * plus the erasure period. Once that moment has come, the notification gets its wissen task, due at that
     * moment; before it there is no task row (a month of them per notification was the largest part of taak).
     * notificatie_te_wissen_idx (V27) holds exactly the terminal notifications that still have their key, so
     * erased ones, kept for years for the delivery proof, are never scanned. A wissen task planned before V27
     * (due long ahead) already counts.
     */
    private static final Statement ERASURE_PLAN_DUE = Statement.named("erasurePlanDue", """
            INSERT INTO taak (soort, dv_id, notificatie, due, trace_id)
            SELECT 'wissen', n.dv_id, n.id, n.terminaal_sinds + CAST(:eraseAfter AS interval), n.trace_id
              FROM notificatie n
             WHERE n.terminaal_sinds <= :dueBefore AND n.datasleutel_gewrapt IS NOT NULL
               AND NOT EXISTS (SELECT 1 FROM taak t WHERE t.notificatie = n.id AND t.soort = 'wissen')
             ORDER BY n.terminaal_sinds
             LIMIT :batch
            ON CONFLICT DO NOTHING
            """);

    /*
     * A terminal notification under a compromised pepper version is erased at once: its wissen task is planned due
     * now, or, planned already for later (before V27), brought forward. The uncorrelated EXISTS is a one-time filter:
     * while no version is compromised (nearly always) the duty's round scans nothing.
     */
    private static final Statement ERASURE_PLAN_COMPROMISED = Statement.named("erasurePlanCompromised", """
            INSERT INTO taak (soort, dv_id, notificatie, due, trace_id)
            SELECT 'wissen', n.dv_id, n.id, :now, n.trace_id
              FROM notificatie n
              JOIN pepper_gecompromitteerd p
                ON (p.doel = 'dvref' AND n.pepper_versie = p.versie)
                OR (p.doel = 'payload' AND n.payload_pepper_versie = p.versie)
                OR (p.doel = 'ldv' AND n.ldv_pepper_versie = p.versie)
             WHERE n.terminaal_sinds IS NOT NULL AND n.datasleutel_gewrapt IS NOT NULL
               AND NOT EXISTS (SELECT 1 FROM taak t WHERE t.notificatie = n.id AND t.soort = 'wissen' AND t.due <= :now)
               AND EXISTS (SELECT 1 FROM pepper_gecompromitteerd)
             LIMIT :batch
            ON CONFLICT (notificatie, soort)
               WHERE notificatie IS NOT NULL AND soort NOT IN ('verwerken', 'ongeldig-melden')
            DO UPDATE SET due = excluded.due WHERE taak.status = 'open'
            """);

    private static final Statement NOTIFICATIE_DELETE_EXPIRED = Statement.named("notificatieDeleteExpired", """
            DELETE FROM notificatie WHERE id IN (
                SELECT id FROM notificatie WHERE terminaal_sinds < :cutoff
                 ORDER BY terminaal_sinds LIMIT :batch FOR UPDATE SKIP LOCKED)
            """);

    private static final Statement PEPPER_MARK_COMPROMISED = Statement.named("pepperMarkCompromised", """
            INSERT INTO pepper_gecompromitteerd (doel, versie, gemarkeerd_op) VALUES (:doel, :versie, :now)
            ON CONFLICT DO NOTHING
            """);

    /**
     * Serialises the marks of every instance until the transaction ends: what is left usable is read and the mark
     * made under it (an advisory lock: the runtime role may not lock the table itself). The key is the NMC's own.
     */
    private static final Statement PEPPER_MARK_LOCK =
            Statement.named("pepperMarkLock", "SELECT 1 AS held FROM (SELECT pg_advisory_xact_lock(4946710231)) AS l");

    private static final Statement PEPPER_COMPROMISED_ALL =
            Statement.named("pepperCompromisedAll", "SELECT doel, versie FROM pepper_gecompromitteerd");

    /** A data key wrapped under an older KEK version. */
    record WrappedKey(UUID notificatie, byte[] wrapped, int kekVersion) {}

    /** A pepper version marked compromised, its purpose as the database names it. */
    record CompromisedPepper(String purpose, int version) {}

    /** Deletes the notification's data key and LDV pseudonym (the ciphertexts stay). */
    void erase(DbTransaction tx, UUID notificatie) {
        NOTIFICATIE_ERASE.dml(tx).addParam("id", notificatie).execute();
    }

    /**
     * Locks up to {@code batch} notifications whose data key is wrapped under another version than {@code current},
     * or still with AES-GCM (before key wrap); rows another transaction holds are skipped, and so are rows under a
     * version this instance does not {@code hold} (a newer one, during a rolling deploy that adds it), and the rows
     * to {@code skip} (their key did not unwrap).
     */
    List<WrappedKey> lockOldKeys(
            DbTransaction tx, int current, java.util.Set<Integer> held, java.util.Set<UUID> skip, int batch) {
        String[] skipped = uuids(skip);
        List<WrappedKey> keys = NOTIFICATIE_OLD_KEYS
                .query(tx)
                .addParam("current", current)
                .addParam("held", held.stream().map(String::valueOf).toArray(String[]::new))
                .addParam("skip", skipped)
                .addParam("batch", batch)
                .execute()
                .map(RetentionRepository::wrappedKey)
                .toList();
        if (keys.size() == batch) {
            return keys;
        }
        // Then the keys under the current version still wrapped with GCM (none after the move).
        List<WrappedKey> all = new java.util.ArrayList<>(keys);
        NOTIFICATIE_GCM_WRAPPED_KEYS
                .query(tx)
                .addParam("skip", skipped)
                .addParam("batch", batch - keys.size())
                .execute()
                .map(RetentionRepository::wrappedKey)
                .filter(key -> keys.stream().noneMatch(k -> k.notificatie().equals(key.notificatie())))
                .forEach(all::add);
        return all;
    }

    private static WrappedKey wrappedKey(io.helidon.dbclient.DbRow row) {
        return new WrappedKey(
                DbTypes.uuid(row, "id"),
                row.column("datasleutel_gewrapt").get(byte[].class),
                DbTypes.integer(row, "kek_versie"));
    }

    /** Stores the data key re-wrapped under {@code kekVersion} (not when it was erased meanwhile). */
    void rewrap(DbTransaction tx, UUID notificatie, byte[] wrapped, int kekVersion) {
        NOTIFICATIE_REWRAP
                .dml(tx)
                .addParam("id", notificatie)
                .addParam("wrapped", wrapped)
                .addParam("kekVersie", kekVersion)
                .execute();
    }

    /** Of {@code ids}, the notifications whose data key is still wrapped under another version or with GCM. */
    java.util.Set<UUID> stillOld(DbTransaction tx, java.util.Set<UUID> ids, int current) {
        java.util.Set<UUID> old = new java.util.HashSet<>();
        NOTIFICATIE_STILL_OLD
                .query(tx)
                .addParam("ids", uuids(ids))
                .addParam("current", current)
                .execute()
                .forEach(row -> old.add(DbTypes.uuid(row, "id")));
        return old;
    }

    private static String[] uuids(java.util.Set<UUID> ids) {
        return ids.stream().map(UUID::toString).toArray(String[]::new);
    }

    /** Notifications that still have a data key, per KEK version. */
    Map<Integer, Long> countPerKek(DbTransaction tx) {
        Map<Integer, Long> counts = new TreeMap<>();
        NOTIFICATIE_COUNT_PER_KEK
                .query(tx)
                .execute()
                .forEach(row -> counts.put(DbTypes.integer(row, "kek_versie"), DbTypes.longValue(row, "aantal")));
        return counts;
    }

    /**
     * Plans the erasure of up to {@code batch} terminal notifications whose erasure is due by {@code now} (their
     * terminal time plus {@code eraseAfter}), each due at that moment; returns how many.
     */
    long planDueErasures(DbTransaction tx, Instant now, Duration eraseAfter, int batch) {
        return ERASURE_PLAN_DUE
                .dml(tx)
                .addParam("dueBefore", now.minus(eraseAfter))
                .addParam("eraseAfter", eraseAfter)
                .addParam("batch", batch)
                .execute();
    }

    /** Makes the erasure of up to {@code batch} terminal notifications under a compromised pepper due {@code now}. */
    long planCompromisedErasures(DbTransaction tx, Instant now, int batch) {
        return ERASURE_PLAN_COMPROMISED
                .dml(tx)
                .addParam("now", now)
                .addParam("batch", batch)
                .execute();
    }

    /** Deletes up to {@code batch} notifications terminal since before {@code cutoff}, skipping locked ones. */
    long deleteExpired(DbTransaction tx, Instant cutoff, int batch) {
        return NOTIFICATIE_DELETE_EXPIRED
                .dml(tx)
                .addParam("cutoff", cutoff)
                .addParam("batch", batch)
                .execute();
    }

    /** Marks a pepper version compromised (nothing when it already is). */
    void lockPepperMarks(DbTransaction tx) {
        PEPPER_MARK_LOCK.query(tx).execute().toList();
    }

    void markCompromised(DbTransaction tx, String purpose, int version, Instant now) {
        PEPPER_MARK_COMPROMISED
                .dml(tx)
                .addParam("doel", purpose)
                .addParam("versie", version)
                .addParam("now", now)
                .execute();
    }

    /** Every pepper version marked compromised. */
    List<CompromisedPepper> compromisedPeppers(DbTransaction tx) {
        return PEPPER_COMPROMISED_ALL
                .query(tx)
                .execute()
                .map(row -> new CompromisedPepper(DbTypes.text(row, "doel"), DbTypes.integer(row, "versie")))
                .toList();
    }
}
