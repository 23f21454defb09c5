package nl.overheid.moz.nmc.register;

import io.helidon.dbclient.DbRow;
import io.helidon.dbclient.DbTransaction;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ConcurrentHashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.Optional;
import java.util.UUID;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.db.DbTypes;
import nl.overheid.moz.nmc.db.Statement;

/**
 * The DV register ({@code dienstverlener}, {@code dienstverlener_berichttype}) and the berichttype table.
 * Onboarding fills them; the local run seeds them from configuration ({@link #upsert}).
 */
public final class Register {

    private static final Statement DIENSTVERLENER_BY_OIN = Statement.named("dienstverlenerByOin", """
            SELECT d.id, d.oin, d.naam, d.quotum_per_minuut,
                   CAST(extract(epoch FROM d.max_cursorleeftijd) AS bigint) AS max_cursor_seconds,
                   coalesce(array_agg(b.berichttype) FILTER (WHERE b.berichttype IS NOT NULL), '{}') AS berichttypen
              FROM dienstverlener d
              LEFT JOIN dienstverlener_berichttype b ON b.dv_id = d.id
             WHERE d.oin = :oin
             GROUP BY d.id, d.oin, d.naam, d.quotum_per_minuut, d.max_cursorleeftijd
            """);

    private static final Statement BERICHTTYPE_BY_CODE = Statement.named("berichttypeByCode", """
            SELECT code, notify_template_id, notify_service, max_pogingenteller, verwerkingsactiviteit,
                   CAST(extract(epoch FROM standaard_geldigheid) AS bigint) AS geldigheid_seconds
              FROM berichttype WHERE code = :code
            """);

    private static final Statement BERICHTTYPE_UPSERT = Statement.named("berichttypeUpsert", """
            INSERT INTO berichttype (code, notify_template_id, notify_service, standaard_geldigheid, max_pogingenteller,
                                     verwerkingsactiviteit)
            VALUES (:code, :template, :service, CAST(:geldigheid AS interval), :maxPogingen, :verwerkingsactiviteit)
            ON CONFLICT (code) DO UPDATE SET notify_template_id = excluded.notify_template_id,
                   notify_service = excluded.notify_service, standaard_geldigheid = excluded.standaard_geldigheid,
                   max_pogingenteller = excluded.max_pogingenteller,
                   verwerkingsactiviteit = excluded.verwerkingsactiviteit
            """);

    private static final Statement DIENSTVERLENER_UPSERT = Statement.named("dienstverlenerUpsert", """
            INSERT INTO dienstverlener (oin, naam, quotum_per_minuut, webhook_url, webhook_max_mislukkingen,
                                        bevestigingstermijn, max_cursorleeftijd, beheerkanaal)
            VALUES (:oin, :naam, :quotum, :webhook, :maxMislukkingen, CAST(:bevestigingstermijn AS interval),
                    CAST(:maxCursorleeftijd AS interval), :beheerkanaal)
            ON CONFLICT (oin) DO UPDATE SET naam = excluded.naam, quotum_per_minuut = excluded.quotum_per_minuut,
                   webhook_url = excluded.webhook_url, webhook_max_mislukkingen = excluded.webhook_max_mislukkingen,
                   bevestigingstermijn = excluded.bevestigingstermijn,
                   max_cursorleeftijd = excluded.max_cursorleeftijd, beheerkanaal = excluded.beheerkanaal
            RETURNING id
            """);

    private static final Statement DIENSTVERLENER_ALLOW_BERICHTTYPE = Statement.named("dienstverlenerAllowBerichttype", """
            INSERT INTO dienstverlener_berichttype (dv_id, berichttype) VALUES (:dvId, :berichttype)
            ON CONFLICT DO NOTHING
            """);

    private static final Statement BERICHTTYPE_ALL = Statement.named("berichttypeAll", """
            SELECT code, notify_template_id, notify_service, max_pogingenteller, verwerkingsactiviteit,
                   CAST(extract(epoch FROM standaard_geldigheid) AS bigint) AS geldigheid_seconds
              FROM berichttype
            """);
    private static final Statement BERICHTTYPE_SERVICES = Statement.named("berichttypeServices",
            "SELECT code, notify_service FROM berichttype ORDER BY code");


    /* The operator API's reads and writes: a DV with everything agreed at onboarding, its berichttypen a set. */
    private static final Statement DIENSTVERLENER_REGISTRATIONS = Statement.named("dienstverlenerRegistrations", """
            SELECT d.id, d.oin, d.naam, d.quotum_per_minuut, d.webhook_url, d.webhook_max_mislukkingen,
                   CAST(extract(epoch FROM d.bevestigingstermijn) AS bigint) AS bevestigingstermijn_seconds,
                   CAST(extract(epoch FROM d.max_cursorleeftijd) AS bigint) AS max_cursor_seconds, d.beheerkanaal,
                   coalesce(array_agg(b.berichttype ORDER BY b.berichttype) FILTER (WHERE b.berichttype IS NOT NULL),
                            '{}') AS berichttypen
              FROM dienstverlener d
              LEFT JOIN dienstverlener_berichttype b ON b.dv_id = d.id
             WHERE CAST(:oin AS text) IS NULL OR d.oin = :oin
             GROUP BY d.id
             ORDER BY d.oin
            """);

    private static final Statement DIENSTVERLENER_DISALLOW_OTHER_BERICHTTYPEN = Statement.named(
            "dienstverlenerDisallowOtherBerichttypen", """
            DELETE FROM dienstverlener_berichttype
             WHERE dv_id = :dvId AND berichttype <> ALL (CAST(:berichttypen AS text[]))
            """);

    private final Database database;
    private final Clock clock;
    private final Duration cacheTtl;
    /* Every request reads its DV and berichttype; both change only by onboarding. */
    private final Map<String, Cached<Optional<Dienstverlener>>> dienstverleners = new ConcurrentHashMap<>();
    private volatile Cached<Map<String, Berichttype>> berichttypen;

    /** A register read at every call (tests, tools). */
    public Register(Database database) {
        this(database, Clock.systemUTC(), Duration.ZERO);
    }

    /**
     * @param cacheTtl how long a DV or the berichttypen read from the database are used before they are read
     *                 again ({@code register.cache-ttl}): a change by onboarding takes effect within it
     */
    public Register(Database database, Clock clock, Duration cacheTtl) {
        this.database = database;
        this.clock = clock;
        this.cacheTtl = cacheTtl;
    }

    private record Cached<T>(T value, Instant readAt) {
    }

    private boolean fresh(Cached<?> cached) {
        return cached != null && clock.instant().isBefore(cached.readAt().plus(cacheTtl));
    }

    public Optional<Dienstverlener> dienstverlenerByOin(String oin) {
        Cached<Optional<Dienstverlener>> cached = dienstverleners.get(oin);
        if (fresh(cached)) {
            return cached.value();
        }
        Optional<Dienstverlener> read = readDienstverlener(oin);
        if (cacheTtl.isPositive() && read.isPresent()) {
            dienstverleners.put(oin, new Cached<>(read, clock.instant()));
        }
        return read;
    }

    /** The berichttypen with these codes that exist, by code (through the cache). */
    public Map<String, Berichttype> berichttypen(Set<String> codes) {
        Cached<Map<String, Berichttype>> cached = berichttypen;
        if (!fresh(cached)) {
            Map<String, Berichttype> all = database.autocommit(db -> BERICHTTYPE_ALL.query(db).execute()
                    .map(Register::berichttype).collect(Collectors.toUnmodifiableMap(Berichttype::code, t -> t)));
            cached = new Cached<>(all, clock.instant());
            berichttypen = cached;
        }
        Map<String, Berichttype> all = cached.value();
        return codes.stream().filter(all::containsKey).collect(Collectors.toMap(code -> code, all::get));
    }

    private Optional<Dienstverlener> readDienstverlener(String oin) {
        return database.autocommit(db -> DIENSTVERLENER_BY_OIN.get(db).addParam("oin", oin).execute()
                .map(row -> new Dienstverlener(DbTypes.uuid(row, "id"), DbTypes.text(row, "oin"),
                        DbTypes.text(row, "naam"), new HashSet<>(DbTypes.strings(row, "berichttypen")),
                        DbTypes.integer(row, "quotum_per_minuut"),
                        Duration.ofSeconds(DbTypes.longValue(row, "max_cursor_seconds")))));
    }

    public Optional<Berichttype> berichttype(DbTransaction tx, String code) {
        return BERICHTTYPE_BY_CODE.get(tx).addParam("code", code).execute().map(Register::berichttype);
    }

    private static Berichttype berichttype(DbRow row) {
        Long validity = DbTypes.nullableLong(row, "geldigheid_seconds");
        return new Berichttype(DbTypes.text(row, "code"), DbTypes.uuid(row, "notify_template_id"),
                DbTypes.text(row, "notify_service"), validity == null ? null : Duration.ofSeconds(validity),
                DbTypes.integer(row, "max_pogingenteller"), DbTypes.text(row, "verwerkingsactiviteit"));
    }

    /**
     * Refuses (at start-up) a register with a berichttype whose NotifyNL service is not among {@code configured}:
     * sending it with another service's key would get NotifyNL's 400 for every notification, recorded as
     * niet-bezorgbaar. Onboarding registers berichttypen in the database, so the check reads the table.
     */
    public void requireNotifyServices(java.util.Set<String> configured) {
        List<String> missing = database.inTransaction(tx -> BERICHTTYPE_SERVICES.query(tx).execute()
                .filter(row -> !configured.contains(DbTypes.text(row, "notify_service")))
                .map(row -> "berichttype " + DbTypes.text(row, "code") + " uses NotifyNL service "
                        + DbTypes.text(row, "notify_service"))
                .toList());
        if (!missing.isEmpty()) {
            throw new IllegalStateException(String.join("; ", missing) + ", which has no configuration: set "
                    + "notifynl.services.<service>.api-key (configured: " + new java.util.TreeSet<>(configured) + ")");
        }
    }

    /** Seeds or updates DVs and berichttypen (local run and tests; production onboarding owns this). */
    public void upsert(List<Berichttype> berichttypen, List<DvSeed> dienstverleners) {
        this.dienstverleners.clear();
        this.berichttypen = null;
        database.inTransactionDo(tx -> {
            for (Berichttype type : berichttypen) {
                BERICHTTYPE_UPSERT.dml(tx).addParam("code", type.code())
                        .addParam("template", type.notifyTemplateId()).addParam("service", type.notifyService())
                        .addParam("geldigheid", type.defaultValidity())
                        .addParam("maxPogingen", type.maxFailures())
                        .addParam("verwerkingsactiviteit", type.processingActivity()).execute();
            }
            for (DvSeed dv : dienstverleners) {
                UUID id = dienstverlenerUpsert(tx, dv);
                for (String type : dv.berichttypen()) {
                    DIENSTVERLENER_ALLOW_BERICHTTYPE.dml(tx).addParam("dvId", id).addParam("berichttype", type)
                            .execute();
                }
            }
        });
    }

    /** Inserts or updates the DV's register row and its contract (seeding and onboarding alike); returns its id. */
    private static UUID dienstverlenerUpsert(DbTransaction tx, DvSeed dv) {
        Contract c = dv.contract();
        return DIENSTVERLENER_UPSERT.get(tx).addParam("oin", dv.oin()).addParam("naam", dv.naam())
                .addParam("quotum", dv.quotaPerMinute())
                .addParam("webhook", c.webhookUrl() == null ? null : c.webhookUrl().toString())
                .addParam("maxMislukkingen", c.webhookMaxMislukkingen())
                .addParam("bevestigingstermijn", c.acknowledgementPeriod())
                .addParam("maxCursorleeftijd", c.maxCursorleeftijd())
                .addParam("beheerkanaal", c.managementChannel() == null ? null : c.managementChannel().toString())
                .execute()
                .map(row -> DbTypes.uuid(row, "id")).orElseThrow();
    }

    /** A DV as registered, with what was agreed at onboarding. */
    public record Registration(UUID id, DvSeed dv) {
    }

    /** Every registered DV ({@code oin} null) or the one with this OIN, by OIN. */
    public List<Registration> registrations(DbTransaction tx, String oin) {
        return DIENSTVERLENER_REGISTRATIONS.query(tx).addParam("oin", oin).execute()
                .map(row -> {
                    String webhook = DbTypes.text(row, "webhook_url");
                    String kanaal = DbTypes.text(row, "beheerkanaal");
                    return new Registration(DbTypes.uuid(row, "id"), new DvSeed(DbTypes.text(row, "oin"),
                            DbTypes.text(row, "naam"), DbTypes.strings(row, "berichttypen"),
                            DbTypes.integer(row, "quotum_per_minuut"),
                            new Contract(webhook == null ? null : java.net.URI.create(webhook),
                                    DbTypes.integer(row, "webhook_max_mislukkingen"),
                                    Duration.ofSeconds(DbTypes.longValue(row, "bevestigingstermijn_seconds")),
                                    Duration.ofSeconds(DbTypes.longValue(row, "max_cursor_seconds")),
                                    kanaal == null ? null : java.net.URI.create(kanaal))));
                }).toList();
    }

    /** Every berichttype, by code (read now, not through the cache). */
    public List<Berichttype> allBerichttypen(DbTransaction tx) {
        return BERICHTTYPE_ALL.query(tx).execute().map(Register::berichttype)
                .sorted(java.util.Comparator.comparing(Berichttype::code)).toList();
    }

    /**
     * Registers a DV or replaces its registration in the caller's transaction; its berichttypen become exactly
     * {@code dv.berichttypen()} (they must exist). This instance's cache forgets it; other instances within
     * their {@code register.cache-ttl}.
     */
    public UUID put(DbTransaction tx, DvSeed dv) {
        UUID id = dienstverlenerUpsert(tx, dv);
        DIENSTVERLENER_DISALLOW_OTHER_BERICHTTYPEN.dml(tx).addParam("dvId", id)
                .addParam("berichttypen", dv.berichttypen().toArray(String[]::new)).execute();
        for (String type : dv.berichttypen()) {
            DIENSTVERLENER_ALLOW_BERICHTTYPE.dml(tx).addParam("dvId", id).addParam("berichttype", type).execute();
        }
        dienstverleners.remove(dv.oin());
        return id;
    }

    /** Registers a berichttype or replaces it, in the caller's transaction. */
    public void put(DbTransaction tx, Berichttype type) {
        BERICHTTYPE_UPSERT.dml(tx).addParam("code", type.code())
                .addParam("template", type.notifyTemplateId()).addParam("service", type.notifyService())
                .addParam("geldigheid", type.defaultValidity())
                .addParam("maxPogingen", type.maxFailures())
                .addParam("verwerkingsactiviteit", type.processingActivity()).execute();
        berichttypen = null;
    }

    /** A DV to seed, with its feedback contract. */
    public record DvSeed(String oin, String naam, List<String> berichttypen, int quotaPerMinute, Contract contract) {

        public DvSeed(String oin, String naam, List<String> berichttypen, int quotaPerMinute) {
            this(oin, naam, berichttypen, quotaPerMinute, Contract.defaults());
        }
    }
}
