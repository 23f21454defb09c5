package nl.overheid.moz.nmc.register;

import io.helidon.dbclient.DbTransaction;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import nl.overheid.moz.nmc.db.Database;

/**
 * The DV register ({@code dienstverlener}, {@code dienstverlener_berichttype}) and the berichttype table.
 * Onboarding fills them; the local run seeds them from configuration ({@link #upsert}). Caches what it reads;
 * the SQL is {@link RegisterRepository}'s.
 */
public final class Register {

    private final Database database;
    private final RegisterRepository repository;
    private final Clock clock;
    private final Duration cacheTtl;
    /* Every request reads its DV and berichttype; both change only by onboarding. */
    private final Map<String, Cached<Optional<Dienstverlener>>> dienstverleners = new ConcurrentHashMap<>();
    private volatile Cached<Map<String, Berichttype>> berichttypen;

    /** A register read at every call (tests, tools). */
    public Register(Database database) {
        this(database, new RegisterRepository(), Clock.systemUTC(), Duration.ZERO);
    }

    /**
     * @param cacheTtl how long a DV or the berichttypen read from the database are used before they are read
     *                 again ({@code register.cache-ttl}): a change by onboarding takes effect within it
     */
    public Register(Database database, RegisterRepository repository, Clock clock, Duration cacheTtl) {
        this.database = database;
        this.repository = repository;
        this.clock = clock;
        this.cacheTtl = cacheTtl;
    }

    private record Cached<T>(T value, Instant readAt) {}

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

    /** The OIN of a DV by its id, in {@code db}'s transaction; kept once read (a DV's OIN never changes). */
    public Optional<String> oin(io.helidon.dbclient.DbExecute db, java.util.UUID dvId) {
        String known = oins.get(dvId);
        if (known != null) {
            return Optional.of(known);
        }
        Optional<String> read = repository.oin(db, dvId);
        read.ifPresent(oin -> oins.put(dvId, oin));
        return read;
    }

    private final Map<java.util.UUID, String> oins = new ConcurrentHashMap<>();

    private final Object berichttypenRead = new Object();

    /** The berichttypen with these codes that exist, by code (through the cache). */
    public Map<String, Berichttype> berichttypen(Set<String> codes) {
        Cached<Map<String, Berichttype>> cached = berichttypen;
        if (!fresh(cached)) {
            // one reader at a time: every acceptance asks, and an expired cache must not send them all to the database
            synchronized (berichttypenRead) {
                cached = berichttypen;
                if (!fresh(cached)) {
                    Map<String, Berichttype> all = database.autocommit(repository::berichttypen);
                    cached = new Cached<>(all, clock.instant());
                    berichttypen = cached;
                }
            }
        }
        Map<String, Berichttype> all = cached.value();
        return codes.stream().filter(all::containsKey).collect(Collectors.toMap(code -> code, all::get));
    }

    private Optional<Dienstverlener> readDienstverlener(String oin) {
        return database.autocommit(db -> repository.dienstverlener(db, oin));
    }

    public Optional<Berichttype> berichttype(DbTransaction tx, String code) {
        return repository.berichttype(tx, code);
    }

    /**
     * Refuses (at start-up) a register with a berichttype whose NotifyNL service is not among {@code configured}:
     * sending it with another service's key would get NotifyNL's 400 for every notification, recorded as
     * niet-bezorgbaar. Onboarding registers berichttypen in the database, so the check reads the table.
     */
    public void requireNotifyServices(java.util.Set<String> configured) {
        List<String> missing = database.inTransaction(repository::notifyServices).entrySet().stream()
                .filter(service -> !configured.contains(service.getValue()))
                .map(service -> "berichttype " + service.getKey() + " uses NotifyNL service " + service.getValue())
                .toList();
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
                repository.upsertBerichttype(tx, type);
            }
            for (DvSeed dv : dienstverleners) {
                UUID id = repository.upsertDienstverlener(tx, dv);
                for (String type : dv.berichttypen()) {
                    repository.allowBerichttype(tx, id, type);
                }
            }
        });
    }

    /** A DV as registered, with what was agreed at onboarding. */
    public record Registration(UUID id, DvSeed dv) {}

    /** Every registered DV ({@code oin} null) or the one with this OIN, by OIN. */
    public List<Registration> registrations(DbTransaction tx, String oin) {
        return repository.registrations(tx, oin);
    }

    /** Every berichttype, by code (read now, not through the cache). */
    public List<Berichttype> allBerichttypen(DbTransaction tx) {
        return repository.allBerichttypen(tx).stream()
                .sorted(java.util.Comparator.comparing(Berichttype::code))
                .toList();
    }

    /**
     * Registers a DV or replaces its registration in the caller's transaction; its berichttypen become exactly
     * {@code dv.berichttypen()} (they must exist). This instance's cache forgets it; other instances within
     * their {@code register.cache-ttl}.
     */
    public UUID put(DbTransaction tx, DvSeed dv) {
        UUID id = repository.upsertDienstverlener(tx, dv);
        repository.disallowOtherBerichttypen(tx, id, dv.berichttypen());
        for (String type : dv.berichttypen()) {
            repository.allowBerichttype(tx, id, type);
        }
        dienstverleners.remove(dv.oin());
        return id;
    }

    /** Registers a berichttype or replaces it, in the caller's transaction. */
    public void put(DbTransaction tx, Berichttype type) {
        repository.upsertBerichttype(tx, type);
        berichttypen = null;
    }

    /**
     * A DV to seed or register, with its feedback contract and how the Profielservice knows it.
     *
     * @param profielNaam        its name at the Profielservice; null: its {@code naam}
     * @param identificatieTypen the identifier types it may use in the centralised regime (default KVK)
     */
    public record DvSeed(
            String oin,
            String naam,
            List<String> berichttypen,
            int quotaPerMinute,
            Contract contract,
            String profielNaam,
            List<String> identificatieTypen) {

        /** KVK numbers only, unless the register says otherwise (BSN needs a legal basis). */
        public static final List<String> DEFAULT_IDENTIFICATIE_TYPEN = List.of("KVK");

        public DvSeed {
            identificatieTypen = identificatieTypen == null || identificatieTypen.isEmpty()
                    ? DEFAULT_IDENTIFICATIE_TYPEN
                    : identificatieTypen.stream().distinct().sorted().toList();
        }

        public DvSeed(String oin, String naam, List<String> berichttypen, int quotaPerMinute, Contract contract) {
            this(oin, naam, berichttypen, quotaPerMinute, contract, null, DEFAULT_IDENTIFICATIE_TYPEN);
        }

        public DvSeed(String oin, String naam, List<String> berichttypen, int quotaPerMinute) {
            this(oin, naam, berichttypen, quotaPerMinute, Contract.defaults());
        }
    }
}
