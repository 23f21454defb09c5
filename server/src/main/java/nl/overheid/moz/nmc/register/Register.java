package nl.overheid.moz.nmc.register;

import java.sql.Connection;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.db.Sql;

/**
 * The DV register ({@code dienstverlener}, {@code dienstverlener_berichttype}) and the berichttype table.
 * Onboarding fills them; the local run seeds them from configuration ({@link #upsert}).
 */
public final class Register {

    private static final String DV_BY_OIN = """
            SELECT d.id, d.oin, d.naam, d.quotum_per_minuut,
                   extract(epoch FROM d.max_cursorleeftijd)::bigint AS max_cursor_seconds,
                   coalesce(array_agg(b.berichttype) FILTER (WHERE b.berichttype IS NOT NULL), '{}') AS berichttypen
              FROM dienstverlener d
              LEFT JOIN dienstverlener_berichttype b ON b.dv_id = d.id
             WHERE d.oin = :oin
             GROUP BY d.id, d.oin, d.naam, d.quotum_per_minuut, d.max_cursorleeftijd
            """;

    private static final String BERICHTTYPE = """
            SELECT code, notify_template_id, notify_service, max_pogingenteller,
                   extract(epoch FROM standaard_geldigheid)::bigint AS geldigheid_seconds
              FROM berichttype WHERE code = :code
            """;

    private static final String UPSERT_BERICHTTYPE = """
            INSERT INTO berichttype (code, notify_template_id, notify_service, standaard_geldigheid, max_pogingenteller)
            VALUES (:code, :template, :service, :geldigheid::interval, :maxPogingen)
            ON CONFLICT (code) DO UPDATE SET notify_template_id = excluded.notify_template_id,
                   notify_service = excluded.notify_service, standaard_geldigheid = excluded.standaard_geldigheid,
                   max_pogingenteller = excluded.max_pogingenteller
            """;

    private static final String UPSERT_DV = """
            INSERT INTO dienstverlener (oin, naam, quotum_per_minuut)
            VALUES (:oin, :naam, :quotum)
            ON CONFLICT (oin) DO UPDATE SET naam = excluded.naam, quotum_per_minuut = excluded.quotum_per_minuut
            RETURNING id
            """;

    private static final String ALLOW_BERICHTTYPE = """
            INSERT INTO dienstverlener_berichttype (dv_id, berichttype) VALUES (:dvId, :berichttype)
            ON CONFLICT DO NOTHING
            """;

    private static final String DV_LOCK = "SELECT id FROM dienstverlener WHERE id = :id FOR UPDATE";

    private final Database database;

    public Register(Database database) {
        this.database = database;
    }

    public Optional<Dienstverlener> dienstverlenerByOin(String oin) {
        return database.inTransaction(connection -> Sql.on(connection, DV_BY_OIN).bind("oin", oin)
                .optional(row -> new Dienstverlener(row.uuid("id"), row.string("oin"), row.string("naam"),
                        new HashSet<>(Arrays.asList((String[]) row.array("berichttypen"))),
                        row.integer("quotum_per_minuut"), Duration.ofSeconds(row.longValue("max_cursor_seconds")))));
    }

    public Optional<Berichttype> berichttype(Connection connection, String code) {
        return Sql.on(connection, BERICHTTYPE).bind("code", code).optional(row -> new Berichttype(
                row.string("code"), row.uuid("notify_template_id"), row.string("notify_service"),
                row.nullableLong("geldigheid_seconds") == null ? null
                        : Duration.ofSeconds(row.nullableLong("geldigheid_seconds")),
                row.integer("max_pogingenteller")));
    }

    /**
     * Locks the DV's register row for the rest of the transaction, so that checks over the DV's own
     * acceptances (the quota) serialise per DV. Transaction-scoped: fine behind a transaction pooler.
     */
    public void dienstverlenerLock(java.sql.Connection connection, UUID dvId) {
        Sql.on(connection, DV_LOCK).bind("id", dvId).optional(row -> row.uuid("id"));
    }

    /** Seeds or updates DVs and berichttypen (local run and tests; production onboarding owns this). */
    public void upsert(List<Berichttype> berichttypen, List<DvSeed> dienstverleners) {
        database.inTransactionDo(connection -> {
            for (Berichttype type : berichttypen) {
                Sql.on(connection, UPSERT_BERICHTTYPE).bind("code", type.code())
                        .bind("template", type.notifyTemplateId()).bind("service", type.notifyService())
                        .bind("geldigheid", type.standaardGeldigheid() == null ? null
                                : type.standaardGeldigheid().toSeconds() + " seconds")
                        .bind("maxPogingen", type.maxPogingenteller()).update();
            }
            for (DvSeed dv : dienstverleners) {
                UUID id = Sql.on(connection, UPSERT_DV).bind("oin", dv.oin()).bind("naam", dv.naam())
                        .bind("quotum", dv.quotumPerMinuut()).one(row -> row.uuid("id"));
                for (String type : dv.berichttypen()) {
                    Sql.on(connection, ALLOW_BERICHTTYPE).bind("dvId", id).bind("berichttype", type).update();
                }
            }
        });
    }

    /** A DV to seed. */
    public record DvSeed(String oin, String naam, List<String> berichttypen, int quotumPerMinuut) {
    }
}
