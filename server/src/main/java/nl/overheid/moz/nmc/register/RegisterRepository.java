package nl.overheid.moz.nmc.register;

import io.helidon.dbclient.DbExecute;
import io.helidon.dbclient.DbRow;
import io.helidon.dbclient.DbTransaction;
import java.net.URI;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import nl.overheid.moz.nmc.db.DbTypes;
import nl.overheid.moz.nmc.db.Statement;

/**
 * The SQL of the register: {@code dienstverlener} with the berichttypen it may send
 * ({@code dienstverlener_berichttype}), and {@code berichttype}. {@link Register} caches what it reads.
 */
public final class RegisterRepository {

    private static final Statement DIENSTVERLENER_OIN =
            Statement.named("dienstverlenerOin", "SELECT oin FROM dienstverlener WHERE id = :id");

    private static final Statement DIENSTVERLENER_BY_OIN = Statement.named("dienstverlenerByOin", """
            SELECT d.id, d.oin, d.naam, d.quotum_per_minuut,
                   CAST(extract(epoch FROM d.max_cursorleeftijd) AS bigint) AS max_cursor_seconds,
                   coalesce(d.profiel_naam, d.naam) AS profiel_naam, d.identificatie_typen,
                   coalesce(array_agg(b.berichttype) FILTER (WHERE b.berichttype IS NOT NULL), '{}') AS berichttypen
              FROM dienstverlener d
              LEFT JOIN dienstverlener_berichttype b ON b.dv_id = d.id
             WHERE d.oin = :oin
             GROUP BY d.id
            """);

    private static final Statement BERICHTTYPE_BY_CODE = Statement.named("berichttypeByCode", """
            SELECT code, notify_template_id, notify_service, max_pogingenteller, verwerkingsactiviteit,
                   profiel_dienst_naam, CAST(extract(epoch FROM standaard_geldigheid) AS bigint) AS geldigheid_seconds
              FROM berichttype WHERE code = :code
            """);

    private static final Statement BERICHTTYPE_UPSERT = Statement.named("berichttypeUpsert", """
            INSERT INTO berichttype (code, notify_template_id, notify_service, standaard_geldigheid, max_pogingenteller,
                                     verwerkingsactiviteit, profiel_dienst_naam)
            VALUES (:code, :template, :service, CAST(:geldigheid AS interval), :maxPogingen, :verwerkingsactiviteit,
                    :profielDienstNaam)
            ON CONFLICT (code) DO UPDATE SET notify_template_id = excluded.notify_template_id,
                   notify_service = excluded.notify_service, standaard_geldigheid = excluded.standaard_geldigheid,
                   max_pogingenteller = excluded.max_pogingenteller,
                   verwerkingsactiviteit = excluded.verwerkingsactiviteit,
                   profiel_dienst_naam = excluded.profiel_dienst_naam
            """);

    private static final Statement DIENSTVERLENER_UPSERT = Statement.named("dienstverlenerUpsert", """
            INSERT INTO dienstverlener (oin, naam, quotum_per_minuut, webhook_url, webhook_max_mislukkingen,
                                        bevestigingstermijn, max_cursorleeftijd, beheerkanaal, profiel_naam,
                                        identificatie_typen)
            VALUES (:oin, :naam, :quotum, :webhook, :maxMislukkingen, CAST(:bevestigingstermijn AS interval),
                    CAST(:maxCursorleeftijd AS interval), :beheerkanaal, :profielNaam,
                    CAST(:identificatieTypen AS text[]))
            ON CONFLICT (oin) DO UPDATE SET naam = excluded.naam, quotum_per_minuut = excluded.quotum_per_minuut,
                   webhook_url = excluded.webhook_url, webhook_max_mislukkingen = excluded.webhook_max_mislukkingen,
                   bevestigingstermijn = excluded.bevestigingstermijn,
                   max_cursorleeftijd = excluded.max_cursorleeftijd, beheerkanaal = excluded.beheerkanaal,
                   profiel_naam = excluded.profiel_naam, identificatie_typen = excluded.identificatie_typen
            RETURNING id
            """);

    private static final Statement DIENSTVERLENER_ALLOW_BERICHTTYPE =
            Statement.named("dienstverlenerAllowBerichttype", """
            INSERT INTO dienstverlener_berichttype (dv_id, berichttype) VALUES (:dvId, :berichttype)
            ON CONFLICT DO NOTHING
            """);

    private static final Statement BERICHTTYPE_ALL = Statement.named("berichttypeAll", """
            SELECT code, notify_template_id, notify_service, max_pogingenteller, verwerkingsactiviteit,
                   profiel_dienst_naam, CAST(extract(epoch FROM standaard_geldigheid) AS bigint) AS geldigheid_seconds
              FROM berichttype
            """);
    private static final Statement BERICHTTYPE_SERVICES =
            Statement.named("berichttypeServices", "SELECT code, notify_service FROM berichttype ORDER BY code");

    /* The operator API's reads and writes: a DV with everything agreed at onboarding, its berichttypen a set. */
    private static final Statement DIENSTVERLENER_REGISTRATIONS = Statement.named("dienstverlenerRegistrations", """
            SELECT d.id, d.oin, d.naam, d.quotum_per_minuut, d.webhook_url, d.webhook_max_mislukkingen,
                   CAST(extract(epoch FROM d.bevestigingstermijn) AS bigint) AS bevestigingstermijn_seconds,
                   CAST(extract(epoch FROM d.max_cursorleeftijd) AS bigint) AS max_cursor_seconds, d.beheerkanaal,
                   d.profiel_naam, d.identificatie_typen,
                   coalesce(array_agg(b.berichttype ORDER BY b.berichttype) FILTER (WHERE b.berichttype IS NOT NULL),
                            '{}') AS berichttypen
              FROM dienstverlener d
              LEFT JOIN dienstverlener_berichttype b ON b.dv_id = d.id
             WHERE CAST(:oin AS text) IS NULL OR d.oin = :oin
             GROUP BY d.id
             ORDER BY d.oin
            """);

    private static final Statement DIENSTVERLENER_DISALLOW_OTHER_BERICHTTYPEN =
            Statement.named("dienstverlenerDisallowOtherBerichttypen", """
            DELETE FROM dienstverlener_berichttype
             WHERE dv_id = :dvId AND berichttype <> ALL (CAST(:berichttypen AS text[]))
            """);

    /** The DV with this OIN and the berichttypen it may send. */
    /** The OIN of the DV with this id (empty when there is none). */
    public Optional<String> oin(DbExecute db, java.util.UUID id) {
        return DIENSTVERLENER_OIN.get(db).addParam("id", id).execute().map(row -> DbTypes.text(row, "oin"));
    }

    public Optional<Dienstverlener> dienstverlener(DbExecute db, String oin) {
        return DIENSTVERLENER_BY_OIN
                .get(db)
                .addParam("oin", oin)
                .execute()
                .map(row -> new Dienstverlener(
                        DbTypes.uuid(row, "id"),
                        DbTypes.text(row, "oin"),
                        DbTypes.text(row, "naam"),
                        new HashSet<>(DbTypes.strings(row, "berichttypen")),
                        DbTypes.integer(row, "quotum_per_minuut"),
                        Duration.ofSeconds(DbTypes.longValue(row, "max_cursor_seconds")),
                        DbTypes.text(row, "profiel_naam"),
                        Set.copyOf(DbTypes.strings(row, "identificatie_typen"))));
    }

    /** Every berichttype, by code. */
    public Map<String, Berichttype> berichttypen(DbExecute db) {
        return BERICHTTYPE_ALL
                .query(db)
                .execute()
                .map(RegisterRepository::berichttype)
                .collect(Collectors.toUnmodifiableMap(Berichttype::code, t -> t));
    }

    /** Every berichttype, in the database's order. */
    public List<Berichttype> allBerichttypen(DbExecute db) {
        return BERICHTTYPE_ALL
                .query(db)
                .execute()
                .map(RegisterRepository::berichttype)
                .toList();
    }

    public Optional<Berichttype> berichttype(DbExecute db, String code) {
        return BERICHTTYPE_BY_CODE.get(db).addParam("code", code).execute().map(RegisterRepository::berichttype);
    }

    /** Every berichttype's NotifyNL service, by code in code order. */
    public Map<String, String> notifyServices(DbExecute db) {
        return BERICHTTYPE_SERVICES
                .query(db)
                .execute()
                .collect(Collectors.toMap(
                        row -> DbTypes.text(row, "code"),
                        row -> DbTypes.text(row, "notify_service"),
                        (a, b) -> a,
                        java.util.LinkedHashMap::new));
    }

    /** Inserts or replaces a berichttype. */
    public void upsertBerichttype(DbTransaction tx, Berichttype type) {
        BERICHTTYPE_UPSERT
                .dml(tx)
                .addParam("code", type.code())
                .addParam("template", type.notifyTemplateId())
                .addParam("service", type.notifyService())
                .addParam("geldigheid", type.defaultValidity())
                .addParam("maxPogingen", type.maxFailures())
                .addParam("verwerkingsactiviteit", type.processingActivity())
                .addParam("profielDienstNaam", type.profielDienstNaam())
                .execute();
    }

    /** Inserts or updates the DV's register row and its contract (seeding and onboarding alike); returns its id. */
    public UUID upsertDienstverlener(DbTransaction tx, Register.DvSeed dv) {
        Contract c = dv.contract();
        return DIENSTVERLENER_UPSERT
                .get(tx)
                .addParam("oin", dv.oin())
                .addParam("naam", dv.naam())
                .addParam("quotum", dv.quotaPerMinute())
                .addParam(
                        "webhook",
                        c.webhookUrl() == null ? null : c.webhookUrl().toString())
                .addParam("maxMislukkingen", c.webhookMaxFailures())
                .addParam("bevestigingstermijn", c.acknowledgementPeriod())
                .addParam("maxCursorleeftijd", c.maxCursorAge())
                .addParam(
                        "beheerkanaal",
                        c.managementChannel() == null
                                ? null
                                : c.managementChannel().toString())
                .addParam("profielNaam", dv.profielNaam())
                .addParam("identificatieTypen", dv.identificatieTypen().toArray(String[]::new))
                .execute()
                .map(row -> DbTypes.uuid(row, "id"))
                .orElseThrow();
    }

    /** Lets the DV send the berichttype (nothing when it already may). */
    public void allowBerichttype(DbTransaction tx, UUID dvId, String berichttype) {
        DIENSTVERLENER_ALLOW_BERICHTTYPE
                .dml(tx)
                .addParam("dvId", dvId)
                .addParam("berichttype", berichttype)
                .execute();
    }

    /** Takes from the DV every berichttype not among {@code berichttypen}. */
    public void disallowOtherBerichttypen(DbTransaction tx, UUID dvId, List<String> berichttypen) {
        DIENSTVERLENER_DISALLOW_OTHER_BERICHTTYPEN
                .dml(tx)
                .addParam("dvId", dvId)
                .addParam("berichttypen", berichttypen.toArray(String[]::new))
                .execute();
    }

    /** Every registered DV ({@code oin} null) or the one with this OIN, by OIN. */
    public List<Register.Registration> registrations(DbTransaction tx, String oin) {
        return DIENSTVERLENER_REGISTRATIONS
                .query(tx)
                .addParam("oin", oin)
                .execute()
                .map(row -> {
                    String webhook = DbTypes.text(row, "webhook_url");
                    String kanaal = DbTypes.text(row, "beheerkanaal");
                    return new Register.Registration(
                            DbTypes.uuid(row, "id"),
                            new Register.DvSeed(
                                    DbTypes.text(row, "oin"),
                                    DbTypes.text(row, "naam"),
                                    DbTypes.strings(row, "berichttypen"),
                                    DbTypes.integer(row, "quotum_per_minuut"),
                                    new Contract(
                                            webhook == null ? null : URI.create(webhook),
                                            DbTypes.integer(row, "webhook_max_mislukkingen"),
                                            Duration.ofSeconds(DbTypes.longValue(row, "bevestigingstermijn_seconds")),
                                            Duration.ofSeconds(DbTypes.longValue(row, "max_cursor_seconds")),
                                            kanaal == null ? null : URI.create(kanaal)),
                                    DbTypes.text(row, "profiel_naam"),
                                    DbTypes.strings(row, "identificatie_typen")));
                })
                .toList();
    }

    private static Berichttype berichttype(DbRow row) {
        Long validity = DbTypes.nullableLong(row, "geldigheid_seconds");
        return new Berichttype(
                DbTypes.text(row, "code"),
                DbTypes.uuid(row, "notify_template_id"),
                DbTypes.text(row, "notify_service"),
                validity == null ? null : Duration.ofSeconds(validity),
                DbTypes.integer(row, "max_pogingenteller"),
                DbTypes.text(row, "verwerkingsactiviteit"),
                DbTypes.text(row, "profiel_dienst_naam"));
    }
}
