package nl.overheid.moz.nmc.testing.noskip;

import io.helidon.dbclient.DbRow;
import io.helidon.dbclient.DbTransaction;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.db.DbTypes;
import nl.overheid.moz.nmc.lifecycle.NewNotificatie;
import nl.overheid.moz.nmc.lifecycle.NotificatieRepository;
import nl.overheid.moz.nmc.lifecycle.NotificatieStatus;
import nl.overheid.moz.nmc.lifecycle.Reden;
import nl.overheid.moz.nmc.lifecycle.Transitions;
import nl.overheid.moz.nmc.maintenance.EventPartitions;
import nl.overheid.moz.nmc.maintenance.PartitionRepository;
import nl.overheid.moz.nmc.register.Berichttype;
import nl.overheid.moz.nmc.register.Dienstverlener;
import nl.overheid.moz.nmc.register.Register;
import nl.overheid.moz.nmc.testing.Notifications;
import nl.overheid.moz.nmc.testing.TestNmc;

/**
 * Writers and an oracle for "no event is ever skipped or duplicated": concurrent transactions write events
 * through the real transition function, commit in another order than they started (some held open, some
 * rolled back), while a maintenance run adds the next event partition; {@link Reader}s deliver meanwhile and
 * until the log is drained. The oracle is what each transaction read back of its own events, recorded only
 * once its commit returned.
 *
 * <p>Each seed gives every writer its own generator, so a writer's plan is reproducible; the interleaving is
 * not, which is the point.
 */
public final class EventWorkload {

    /** Rolled-back share of all transactions: their events must never be delivered. */
    private static final double ROLLBACK_RATE = 0.03;
    /** Ordinary writers sometimes stall inside a transaction, as a slow task does. */
    private static final double HOLD_RATE = 0.01;
    /** Laggards hold every other transaction open for up to 1.5 s while everybody else commits. */
    private static final double LAGGARD_HOLD_RATE = 0.5;
    /** Steps on the shared notifications, which writers take turns on (row-lock waits). */
    private static final double CONTENDED_RATE = 0.02;

    private static final double ACCEPT_RATE = 0.45;
    private static final long POLL_MILLIS = 20;
    private static final long DRAIN_TIMEOUT_MILLIS = 180_000;

    /**
     * @param seed                  the master seed
     * @param dvs                   how many DVs (each reader reads one)
     * @param writers               writers that run a fixed number of transactions
     * @param laggards              writers that keep holding transactions open until the others are done
     * @param transactionsPerWriter transactions of each (non-laggard) writer
     * @param maxSteps              transitions per transaction at most (an acceptance batch, a run of tasks)
     * @param contendedPerDv        shared notifications per DV that every writer moves now and then
     */
    public record Settings(
            long seed,
            int dvs,
            int writers,
            int laggards,
            int transactionsPerWriter,
            int maxSteps,
            int contendedPerDv) {

        public static Settings defaults(long seed) {
            return new Settings(seed, 3, 10, 2, 1300, 16, 16);
        }

        int threads() {
            return writers + laggards;
        }
    }

    /** One event as its own transaction read it back before committing. */
    record Written(long id, long xid, UUID dvId, UUID notificatie, int volgnummer, NotificatieStatus to) {}

    /** A transaction whose commit returned, with its events in id order. */
    record Committed(long xid, List<Written> events, boolean heldOpen) {}

    private final Database database;
    private final Transitions transitions = new Transitions(new NotificatieRepository(), Clock.systemUTC());
    private final Settings settings;
    private final List<Dienstverlener> dvs;
    private final List<UUID> contended = new ArrayList<>();
    private final Set<UUID> contendedIds = new HashSet<>();
    private final long partitionWidth;

    private final Queue<Committed> committed = new ConcurrentLinkedQueue<>();
    private final Queue<Written> rolledBack = new ConcurrentLinkedQueue<>();
    private final AtomicInteger rolledBackTransactions = new AtomicInteger();
    private final AtomicInteger heldRolledBack = new AtomicInteger();
    private final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean writersDone = new AtomicBoolean();
    private final AtomicBoolean abort = new AtomicBoolean();

    private EventWorkload(Database database, Settings settings, List<Dienstverlener> dvs) {
        this.database = database;
        this.settings = settings;
        this.dvs = dvs;
        // A third of the writers' transactions, so at most a third of the run's transaction ids (the readers'
        // deliveries and the transition function's subtransactions use ids too; measured: about a seventh): the
        // planned partition fills and the next one fills too, so the rest of the run lands in event_default.
        this.partitionWidth = (long) settings.writers() * settings.transactionsPerWriter() / 3;
    }

    /**
     * Registers the DVs, narrows the first event partition to start at the current transaction id (so the
     * run crosses its end), and commits the shared notifications. Needs a database of its own, freshly
     * migrated and without events.
     */
    public static EventWorkload prepare(Database database, Settings settings) {
        List<Register.DvSeed> seeds = new ArrayList<>();
        for (int i = 1; i <= settings.dvs(); i++) {
            seeds.add(new Register.DvSeed("0000000190000000%04d".formatted(i), "DV " + i, List.of("test-bericht"), 10));
        }
        Register register = new Register(database);
        register.upsert(
                List.of(new Berichttype(
                        "test-bericht", UUID.randomUUID(), "standaard", null, 5, TestNmc.PROCESSING_ACTIVITY, null)),
                seeds);
        List<Dienstverlener> dvs = seeds.stream()
                .map(seed -> register.dienstverlenerByOin(seed.oin()).orElseThrow())
                .toList();
        EventWorkload workload = new EventWorkload(database, settings, dvs);
        workload.narrowFirstPartition();
        workload.commitContended(new Random(settings.seed()));
        return workload;
    }

    public List<Dienstverlener> dvs() {
        return dvs;
    }

    /*
     * A fresh schema's first partition reaches ten million transactions ahead; a test cannot get there. The
     * empty partition is replaced by one of the same kind that starts now and is a third of the run wide.
     */
    private void narrowFirstPartition() {
        database.inTransactionDo(tx -> {
            long events = tx.createGet("SELECT count(*) AS n FROM event")
                    .execute()
                    .map(row -> DbTypes.longValue(row, "n"))
                    .orElseThrow();
            if (events != 0) {
                throw new IllegalStateException("the workload needs a database of its own without events");
            }
            String from = tx.createGet("SELECT CAST(pg_current_xact_id() AS text) AS xid")
                    .execute()
                    .map(row -> DbTypes.text(row, "xid"))
                    .orElseThrow();
            tx.createDmlStatement("DROP TABLE event_p0").execute();
            tx.createDmlStatement("CREATE TABLE event_p0 PARTITION OF event FOR VALUES FROM ('%s') TO ('%d')"
                            .formatted(from, Long.parseLong(from) + partitionWidth))
                    .execute();
        });
    }

    /** Shared notifications, moved to verzonden: from there they can move back and forth forever. */
    private void commitContended(Random random) {
        for (Dienstverlener dv : dvs) {
            List<NewNotificatie> batch = new ArrayList<>();
            for (int i = 0; i < settings.contendedPerDv(); i++) {
                batch.add(newNotificatie(random, dv.id()));
            }
            List<Written> events = database.inTransaction(tx -> {
                for (NewNotificatie n : batch) {
                    Transitions.Locked locked = transitions.accept(tx, n).notificatie();
                    locked = transitions.apply(tx, locked, NotificatieStatus.IN_VERZENDING, null);
                    transitions.apply(tx, locked, NotificatieStatus.VERZONDEN, null);
                }
                return readBack(tx);
            });
            committed.add(new Committed(events.getFirst().xid(), events, false));
            batch.forEach(n -> contended.add(n.id()));
        }
        contendedIds.addAll(contended);
    }

    /**
     * Runs the writers, the maintenance duty and the readers together, then lets the readers drain: once the
     * watermark is past every writer transaction, each reader reads until a page is empty.
     */
    public Outcome run(List<Reader> readers) throws InterruptedException {
        long started = System.nanoTime();
        AtomicBoolean watermarkPassed = new AtomicBoolean();
        List<ReaderRun> readerRuns = readers.stream()
                .map(reader -> new ReaderRun(reader, watermarkPassed))
                .toList();
        List<Thread> readerThreads = new ArrayList<>();
        for (int i = 0; i < readerRuns.size(); i++) {
            readerThreads.add(guarded("noskip-reader-" + i, readerRuns.get(i)));
        }
        PartitionDuty duty = new PartitionDuty();
        Thread dutyThread = guarded("noskip-partitions", duty);

        List<Thread> writers = new ArrayList<>();
        List<Thread> laggards = new ArrayList<>();
        for (int i = 0; i < settings.threads(); i++) {
            boolean laggard = i >= settings.writers();
            Writer writer = new Writer(new Random(settings.seed() * 31 + i + 1), laggard);
            (laggard ? laggards : writers).add(guarded("noskip-writer-" + i, writer));
        }
        long writesDone;
        try {
            for (Thread writer : writers) {
                writer.join();
            }
            writersDone.set(true);
            for (Thread laggard : laggards) {
                laggard.join();
            }
            writesDone = System.nanoTime();
            dutyThread.join();
            awaitWatermarkPast(
                    committed.stream().mapToLong(Committed::xid).max().orElseThrow());
            watermarkPassed.set(true);
            for (Thread reader : readerThreads) {
                reader.join(DRAIN_TIMEOUT_MILLIS);
                if (reader.isAlive()) {
                    failures.add(new AssertionError(
                            reader.getName() + " did not drain within " + DRAIN_TIMEOUT_MILLIS / 1000 + " s"));
                    abort.set(true);
                    reader.join();
                }
            }
        } finally {
            // Whatever went wrong above, no thread of this run outlives it.
            abort.set(true);
            writersDone.set(true);
        }
        long finished = System.nanoTime();
        if (duty.failedRounds.get() > 0) {
            System.out.println("FEED-NO-SKIP: partition rounds that failed and were repaired by the next: "
                    + duty.failedRounds.get() + ", the first: " + duty.firstFailure.get());
        }
        return new Outcome(
                settings,
                List.copyOf(committed),
                List.copyOf(rolledBack),
                rolledBackTransactions.get(),
                heldRolledBack.get(),
                readerRuns.stream().map(ReaderRun::result).toList(),
                partitionCounts(),
                duty.created.get(),
                duty.createdAtNanos.get() - started,
                writesDone - started,
                finished - started,
                List.copyOf(failures),
                dvs.stream().map(Dienstverlener::id).toList());
    }

    /** The body of one of the run's threads. */
    private interface Work {
        void run() throws Exception;
    }

    private Thread guarded(String name, Work work) {
        return Thread.ofPlatform().name(name).start(() -> {
            try {
                work.run();
            } catch (Throwable e) {
                // the thread and the root cause in the report: a DbStatementException's own message names neither
                Throwable root = e;
                while (root.getCause() != null && root.getCause() != root) {
                    root = root.getCause();
                }
                failures.add(new IllegalStateException(name + ": " + e + (root == e ? "" : ", caused by " + root), e));
                abort.set(true);
            }
        });
    }

    /**
     * The feed reads only below the oldest running transaction of the whole cluster, so another database's
     * long transaction delays the drain (never its outcome): wait until every writer transaction is below.
     */
    private void awaitWatermarkPast(long xid) throws InterruptedException {
        long deadline = System.nanoTime() + DRAIN_TIMEOUT_MILLIS * 1_000_000;
        while (!database.inTransaction(
                tx -> tx.createGet("SELECT pg_snapshot_xmin(pg_current_snapshot()) > CAST(:xid AS xid8) AS passed")
                        .addParam("xid", Long.toString(xid))
                        .execute()
                        .orElseThrow()
                        .column("passed")
                        .get(Boolean.class))) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the watermark did not pass the last writer transaction in time");
            }
            Thread.sleep(POLL_MILLIS);
        }
    }

    private Map<String, Long> partitionCounts() {
        Map<String, Long> counts = new LinkedHashMap<>();
        database.inTransactionDo(tx -> tx.createQuery("""
                        SELECT CAST(CAST(tableoid AS regclass) AS text) AS part, count(*) AS n
                          FROM event GROUP BY 1 ORDER BY min(transactie_id)
                        """)
                .execute()
                .forEach(row -> counts.put(DbTypes.text(row, "part"), DbTypes.longValue(row, "n"))));
        return counts;
    }

    /** The events this transaction wrote, read back inside it: the oracle's only source. */
    private static List<Written> readBack(DbTransaction tx) {
        return tx.createQuery("""
                        SELECT id, CAST(transactie_id AS text) AS xid, dv_id, notificatie, volgnummer, naar
                          FROM event WHERE transactie_id = pg_current_xact_id() ORDER BY id
                        """).execute().map(EventWorkload::written).toList();
    }

    private static Written written(DbRow row) {
        return new Written(
                DbTypes.longValue(row, "id"),
                Long.parseLong(DbTypes.text(row, "xid")),
                DbTypes.uuid(row, "dv_id"),
                DbTypes.uuid(row, "notificatie"),
                DbTypes.integer(row, "volgnummer"),
                NotificatieStatus.of(DbTypes.text(row, "naar")));
    }

    /** A notification from the writer's own generator, so a seed replays the same ids. */
    private static NewNotificatie newNotificatie(Random random, UUID dvId) {
        UUID id = new UUID(random.nextLong(), random.nextLong());
        byte[] key = id.toString().getBytes(StandardCharsets.US_ASCII);
        return Notifications.withHmacs(Notifications.aNotificationWithId(id, dvId), key, key);
    }

    /** A step of a writer transaction: exactly one transition, so exactly one event. */
    private sealed interface Step permits Accept, Advance {
        /** Returns the notification's state after the step. */
        Transitions.Locked apply(Transitions transitions, DbTransaction tx);
    }

    private record Accept(NewNotificatie notificatie) implements Step {
        @Override
        public Transitions.Locked apply(Transitions transitions, DbTransaction tx) {
            Transitions.AcceptResult acceptance = transitions.accept(tx, notificatie);
            if (!acceptance.created()) {
                throw new IllegalStateException("a generated notification collided with an existing one");
            }
            return acceptance.notificatie();
        }
    }

    /**
     * The next transition of a notification, chosen by {@code choice} from the status found under its lock;
     * an acceptance instead when it has ended meanwhile (picked twice in one transaction).
     */
    private record Advance(UUID notificatie, double choice, boolean shared, NewNotificatie instead) implements Step {
        @Override
        public Transitions.Locked apply(Transitions transitions, DbTransaction tx) {
            Transitions.Locked current = transitions.lock(tx, notificatie).orElseThrow();
            Optional<Move> move = shared ? sharedMove(current.status(), choice) : ownMove(current.status(), choice);
            return move.map(m -> transitions.apply(tx, current, m.to(), m.reden()))
                    .orElseGet(() -> new Accept(instead).apply(transitions, tx));
        }
    }

    private record Move(NotificatieStatus to, Reden reden) {}

    /** A writer's own notification runs towards an end, mostly the happy one. */
    private static Optional<Move> ownMove(NotificatieStatus status, double c) {
        return Optional.ofNullable(
                switch (status) {
                    case AANGENOMEN ->
                        c < 0.9
                                ? new Move(NotificatieStatus.IN_VERZENDING, null)
                                : new Move(NotificatieStatus.GEANNULEERD, Reden.GEANNULEERD);
                    case IN_VERZENDING ->
                        c < 0.95
                                ? new Move(NotificatieStatus.VERZONDEN, null)
                                : new Move(NotificatieStatus.NIET_BEZORGBAAR, Reden.ONBEREIKBAAR);
                    case VERZONDEN ->
                        c < 0.8
                                ? new Move(NotificatieStatus.BEZORGD, null)
                                : c < 0.95
                                        ? new Move(NotificatieStatus.VERZONDEN, null)
                                        : new Move(NotificatieStatus.BEZORGSTATUS_ONBEKEND, null);
                    case BEZORGD ->
                        c < 0.85
                                ? new Move(NotificatieStatus.DEFINITIEF_BEZORGD, null)
                                : new Move(NotificatieStatus.VERZONDEN, null);
                    case BEZORGSTATUS_ONBEKEND -> new Move(NotificatieStatus.BEZORGD, null);
                    default -> null;
                });
    }

    /** A shared notification never ends: resend, delivered, a temporary failure after delivery, and again. */
    private static Optional<Move> sharedMove(NotificatieStatus status, double c) {
        return Optional.of(
                status == NotificatieStatus.VERZONDEN && c < 0.5
                        ? new Move(NotificatieStatus.BEZORGD, null)
                        : new Move(NotificatieStatus.VERZONDEN, null));
    }

    /** Thrown inside a transaction to roll it back, carrying what it had written. */
    private static final class RolledBack extends RuntimeException {
        private final transient List<Written> written;

        RolledBack(List<Written> written) {
            super("deliberate rollback", null, false, false);
            this.written = written;
        }
    }

    private final class Writer implements Work {
        private final Random random;
        private final boolean laggard;
        /** This writer's live notifications; only it moves them, so no lock waits among writers here. */
        private final List<UUID> own = new ArrayList<>();

        private final Map<UUID, Integer> ownIndex = new HashMap<>();

        Writer(Random random, boolean laggard) {
            this.random = random;
            this.laggard = laggard;
        }

        @Override
        public void run() {
            for (int t = 0;
                    !abort.get() && (laggard ? !writersDone.get() : t < settings.transactionsPerWriter());
                    t++) {
                transaction();
            }
        }

        private void transaction() {
            int steps = 1 + random.nextInt(settings.maxSteps());
            boolean rollback = random.nextDouble() < ROLLBACK_RATE;
            boolean hold = random.nextDouble() < (laggard ? LAGGARD_HOLD_RATE : HOLD_RATE);
            // Holding before the first step keeps a transaction open without an xid yet; after it, with one.
            int holdBefore = hold ? random.nextInt(steps + 1) : -1;
            long holdMillis = laggard ? 100 + random.nextInt(1400) : 20 + random.nextInt(280);
            List<Step> plan = plan(steps);
            try {
                List<Written> written = database.inTransaction(tx -> {
                    for (int s = 0; s <= plan.size(); s++) {
                        if (s == holdBefore) {
                            // The transaction stays open while the others commit; to the watermark a slow
                            // statement and a slow caller look alike.
                            tx.createGet("SELECT true AS held FROM pg_sleep(:seconds)")
                                    .addParam("seconds", holdMillis / 1000.0)
                                    .execute();
                        }
                        if (s < plan.size()) {
                            plan.get(s).apply(transitions, tx);
                        }
                    }
                    List<Written> events = readBack(tx);
                    if (events.size() != plan.size()) {
                        throw new IllegalStateException(
                                plan.size() + " transitions wrote " + events.size() + " events");
                    }
                    if (rollback) {
                        throw new RolledBack(events);
                    }
                    return events;
                });
                committed.add(new Committed(written.getFirst().xid(), written, hold));
                keepTrack(written);
            } catch (RolledBack deliberate) {
                rolledBack.addAll(deliberate.written);
                rolledBackTransactions.incrementAndGet();
                if (hold) {
                    heldRolledBack.incrementAndGet();
                }
            }
        }

        private List<Step> plan(int steps) {
            List<Step> plan = new ArrayList<>(steps);
            boolean sharedTaken = false;
            for (int s = 0; s < steps; s++) {
                double kind = random.nextDouble();
                double choice = random.nextDouble();
                NewNotificatie fresh = newNotificatie(
                        random, dvs.get(random.nextInt(dvs.size())).id());
                // At most one shared notification per transaction: with one lock order nothing can deadlock.
                if (kind < CONTENDED_RATE && !sharedTaken) {
                    sharedTaken = true;
                    plan.add(new Advance(contended.get(random.nextInt(contended.size())), choice, true, fresh));
                } else if (kind < CONTENDED_RATE + ACCEPT_RATE || own.isEmpty()) {
                    plan.add(new Accept(fresh));
                } else {
                    plan.add(new Advance(own.get(random.nextInt(own.size())), choice, false, fresh));
                }
            }
            return plan;
        }

        /** After a commit: new notifications join this writer's own, ended ones leave. */
        private void keepTrack(List<Written> written) {
            for (Written event : written) {
                if (contendedIds.contains(event.notificatie())) {
                    continue;
                }
                if (event.to().terminal() && event.to() != NotificatieStatus.BEZORGSTATUS_ONBEKEND) {
                    Integer index = ownIndex.remove(event.notificatie());
                    if (index != null) {
                        UUID last = own.removeLast();
                        if (index < own.size()) {
                            own.set(index, last);
                            ownIndex.put(last, index);
                        }
                    }
                } else if (!ownIndex.containsKey(event.notificatie())) {
                    ownIndex.put(event.notificatie(), own.size());
                    own.add(event.notificatie());
                }
            }
        }
    }

    /**
     * The maintenance duty as the engine runs it ({@link EventPartitions#runOnce}), until it has created one
     * partition; then it stops, as if maintenance fell behind, so the end of the run lands in event_default.
     *
     * <p>It asks for the next partition from a quarter of the first one's fill on, where the engine waits for
     * 80%: the laggards' transactions hold the event log for up to 1.5 s, longer than the duty's 500 ms lock
     * wait, so a round wins its lock about one time in three. The first partition, narrowed to a few seconds of
     * the run, left the duty between 80% and its end only a few rounds, and on a slow machine none of them won
     * (CI at 3f9e632). The earlier start changes nothing that the rule under test depends on: the partition is
     * still made while every writer and reader runs.
     */
    private final class PartitionDuty implements Work {
        static final double FILL_RATIO = 0.25;
        final AtomicReference<String> created = new AtomicReference<>();
        final AtomicLong createdAtNanos = new AtomicLong();
        final AtomicLong failedRounds = new AtomicLong();
        final AtomicReference<String> firstFailure = new AtomicReference<>();

        @Override
        public void run() throws InterruptedException {
            EventPartitions partitions = new EventPartitions(database, new PartitionRepository());
            while (!abort.get() && !writersDone.get() && created.get() == null) {
                // A round as runOnce runs it: the rows that fell into event_default first, then the next partition.
                // When the transaction ids ran past the last partition's end before the round got its lock (the
                // other databases of the cluster use them too), the next partition cannot be created over the rows
                // already in event_default: that round fails — the duty runner counts it — and the next one adopts
                // them into the partition instead, as in production.
                try {
                    partitions.adoptDefault().stream()
                            .findFirst()
                            .map(EventPartitions.Adopted::partition)
                            .or(() -> partitions.ensureNext(FILL_RATIO))
                            .ifPresent(name -> {
                                narrow(name);
                                createdAtNanos.set(System.nanoTime());
                                created.set(name);
                            });
                } catch (RuntimeException failedRound) {
                    failedRounds.incrementAndGet();
                    firstFailure.compareAndSet(null, String.valueOf(failedRound.getMessage()));
                }
                Thread.sleep(POLL_MILLIS);
            }
        }
    }

    /**
     * A new partition is ten million transaction ids wide (V32), which a test cannot fill either: the one the round
     * made is narrowed, as the first one was, to the same width, so the end of the run lands in event_default. A
     * partition adopted from event_default may already hold rows beyond that width (the rows of the rounds that did
     * not win their lock): it ends just above its highest row then. Under the lock writers wait for, as the
     * maintenance's own DDL makes them.
     */
    private void narrow(String partition) {
        database.inTransactionDo(tx -> {
            tx.createDmlStatement("LOCK TABLE event IN ACCESS EXCLUSIVE MODE").execute();
            long from = Long.parseLong(
                    tx.createGet("SELECT CAST(van AS text) AS van FROM event_partition_bounds() WHERE naam = :naam")
                            .addParam("naam", partition)
                            .execute()
                            .map(row -> DbTypes.text(row, "van"))
                            .orElseThrow());
            long highest = tx.createGet("SELECT CAST(max(transactie_id) AS text) AS hoogste FROM " + partition)
                    .execute()
                    .flatMap(row -> row.column("hoogste").asOptional().map(Object::toString))
                    .map(Long::parseLong)
                    .orElse(from);
            tx.createDmlStatement("ALTER TABLE event DETACH PARTITION " + partition)
                    .execute();
            tx.createDmlStatement("ALTER TABLE event ATTACH PARTITION %s FOR VALUES FROM ('%d') TO ('%d')"
                            .formatted(partition, from, Math.max(from + partitionWidth, highest + 1)))
                    .execute();
        });
    }

    private final class ReaderRun implements Work {
        private final Reader reader;
        private final AtomicBoolean watermarkPassed;
        private final List<Reader.Delivered> delivered = new ArrayList<>();
        private final Set<Long> seen = new HashSet<>();
        private int pages;

        ReaderRun(Reader reader, AtomicBoolean watermarkPassed) {
            this.reader = reader;
            this.watermarkPassed = watermarkPassed;
        }

        @Override
        public void run() throws InterruptedException {
            while (!abort.get()) {
                // Read before the call: only an empty page asked for after the watermark passed ends the drain.
                boolean draining = watermarkPassed.get();
                Reader.Page page = reader.next();
                pages++;
                delivered.addAll(page.events());
                boolean progressed = false;
                for (Reader.Delivered event : page.events()) {
                    progressed |= seen.add(event.eventId());
                }
                if (draining && !page.isEmpty() && !progressed) {
                    return; // only repeats itself now, and would forever: the judgement reports the duplicates
                }
                if (page.isEmpty()) {
                    if (draining) {
                        return;
                    }
                    Thread.sleep(POLL_MILLIS);
                }
            }
        }

        Outcome.ReaderResult result() {
            return new Outcome.ReaderResult(reader.label(), reader.dvId(), pages, List.copyOf(delivered));
        }
    }
}
