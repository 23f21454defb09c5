package nl.overheid.moz.nmc.sending;

import io.helidon.dbclient.DbExecute;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import nl.overheid.moz.nmc.db.DbTypes;
import nl.overheid.moz.nmc.db.Statement;

/** All SQL of {@code sjabloon}: the placeholders of the NotifyNL templates the berichttypen name. */
public final class TemplateRepository {

    private static final Statement TEMPLATE_ALL = Statement.named("templateAll", """
            SELECT notify_service, template_id, gevonden, velden, versie, opgehaald_op FROM sjabloon
            """);

    private static final Statement TEMPLATE_UPSERT = Statement.named("templateUpsert", """
            INSERT INTO sjabloon (notify_service, template_id, gevonden, velden, versie, opgehaald_op)
            VALUES (:service, :templateId, :found, CAST(:fields AS text[]), :version, :now)
            ON CONFLICT (notify_service, template_id) DO UPDATE
               SET gevonden = EXCLUDED.gevonden, velden = EXCLUDED.velden, versie = EXCLUDED.versie,
                   opgehaald_op = EXCLUDED.opgehaald_op
            """);

    /* The (service, template) pairs of the berichttypen whose placeholders are unknown or older than :before. */
    private static final Statement TEMPLATE_STALE = Statement.named("templateStale", """
            SELECT DISTINCT b.notify_service, b.notify_template_id AS template_id
              FROM berichttype b
              LEFT JOIN sjabloon s ON s.notify_service = b.notify_service AND s.template_id = b.notify_template_id
             WHERE s.template_id IS NULL OR s.opgehaald_op < :before
             ORDER BY 1, 2
            """);

    private static final Statement TEMPLATE_FORGET_UNUSED = Statement.named("templateForgetUnused", """
            DELETE FROM sjabloon s
             WHERE NOT EXISTS (SELECT 1 FROM berichttype b
                                WHERE b.notify_service = s.notify_service AND b.notify_template_id = s.template_id)
            """);

    /** A template as stored: {@code found} false when NotifyNL has no such template (then no placeholders). */
    public record Stored(
            String service, UUID templateId, boolean found, List<String> placeholders, Instant fetchedAt) {}

    /** A template of a service. */
    public record Key(String service, UUID templateId) {}

    public List<Stored> all(DbExecute db) {
        return TEMPLATE_ALL
                .query(db)
                .execute()
                .map(row -> new Stored(
                        DbTypes.text(row, "notify_service"),
                        DbTypes.uuid(row, "template_id"),
                        Boolean.TRUE.equals(row.column("gevonden").get(Boolean.class)),
                        DbTypes.strings(row, "velden"),
                        DbTypes.instant(row, "opgehaald_op")))
                .toList();
    }

    public void store(
            DbExecute db,
            String service,
            UUID templateId,
            boolean found,
            List<String> fields,
            Integer version,
            Instant now) {
        TEMPLATE_UPSERT
                .dml(db)
                .addParam("service", service)
                .addParam("templateId", templateId)
                .addParam("found", found)
                .addParam("fields", fields.toArray(String[]::new))
                .addParam("version", version)
                .addParam("now", now)
                .execute();
    }

    /** The templates of the berichttypen that were never fetched or were fetched before {@code before}. */
    public List<Key> stale(DbExecute db, Instant before) {
        return TEMPLATE_STALE
                .query(db)
                .addParam("before", before)
                .execute()
                .map(row -> new Key(DbTypes.text(row, "notify_service"), DbTypes.uuid(row, "template_id")))
                .toList();
    }

    /** Removes the templates no berichttype names any more; returns how many. */
    public long forgetUnused(DbExecute db) {
        return TEMPLATE_FORGET_UNUSED.dml(db).execute();
    }
}
