package nl.overheid.moz.nmc.testing.noskip;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import nl.overheid.moz.nmc.testing.noskip.EventWorkload.Committed;
import nl.overheid.moz.nmc.testing.noskip.EventWorkload.Written;

/**
 * What a run of {@link EventWorkload} committed and what each {@link Reader} delivered, judged against each
 * other. Promised (design §8): every committed event of the reader's DV exactly once, nothing else, in the
 * log's order (transactie_id, id). Not promised, so only counted: increasing {@code sequence} per subject
 * across transactions.
 */
public final class Outcome {

    /** What one reader delivered over the whole run. */
    public record ReaderResult(String label, UUID dvId, int pages, List<Reader.Delivered> delivered) {}

    private final EventWorkload.Settings settings;
    private final List<Committed> committed;
    private final Set<Long> rolledBack;
    private final int rolledBackTransactions;
    private final int heldRolledBack;
    private final List<ReaderResult> readers;
    private final Map<String, Long> partitions;
    private final String createdPartition;
    private final long partitionCreatedNanos;
    private final long writeNanos;
    private final long elapsedNanos;
    private final List<Throwable> failures;
    private final List<UUID> dvIds;
    private final Map<Long, Written> byId = new HashMap<>();
    private final Set<Long> heldOpen = new HashSet<>();

    Outcome(
            EventWorkload.Settings settings,
            List<Committed> committed,
            List<Written> rolledBack,
            int rolledBackTransactions,
            int heldRolledBack,
            List<ReaderResult> readers,
            Map<String, Long> partitions,
            String createdPartition,
            long partitionCreatedNanos,
            long writeNanos,
            long elapsedNanos,
            List<Throwable> failures,
            List<UUID> dvIds) {
        this.settings = settings;
        this.committed = committed;
        this.rolledBack = rolledBack.stream().map(Written::id).collect(Collectors.toSet());
        this.rolledBackTransactions = rolledBackTransactions;
        this.heldRolledBack = heldRolledBack;
        this.readers = readers;
        this.partitions = partitions;
        this.createdPartition = createdPartition;
        this.partitionCreatedNanos = partitionCreatedNanos;
        this.writeNanos = writeNanos;
        this.elapsedNanos = elapsedNanos;
        this.failures = failures;
        this.dvIds = dvIds;
        for (Committed transaction : committed) {
            for (Written event : transaction.events()) {
                byId.put(event.id(), event);
                if (transaction.heldOpen()) {
                    heldOpen.add(event.id());
                }
            }
        }
    }

    public long committedEvents() {
        return byId.size();
    }

    /** Event counts per partition of the log, in transaction-id order; event_default included when used. */
    public Map<String, Long> partitions() {
        return partitions;
    }

    /** The partition the maintenance duty created during the run; null when it did not. */
    public String createdPartition() {
        return createdPartition;
    }

    /** Everything that breaks the promise, one line per reader, plus any failure of a thread; empty when kept. */
    public List<String> problems() {
        List<String> problems = new ArrayList<>();
        failures.forEach(failure -> problems.add("thread failed: " + failure));
        readers.forEach(reader -> judge(reader).ifPresent(problems::add));
        return problems;
    }

    private Optional<String> judge(ReaderResult reader) {
        Map<Long, Integer> times = new HashMap<>();
        int foreign = 0;
        int rolledBackDelivered = 0;
        int unknown = 0;
        int wrongContent = 0;
        int outOfOrder = 0;
        Written previous = null;
        for (Reader.Delivered delivered : reader.delivered()) {
            times.merge(delivered.eventId(), 1, Integer::sum);
            Written event = byId.get(delivered.eventId());
            if (event == null) {
                if (rolledBack.contains(delivered.eventId())) {
                    rolledBackDelivered++;
                } else {
                    unknown++;
                }
                continue;
            }
            if (!event.dvId().equals(reader.dvId())) {
                foreign++;
            }
            if (!event.notificatie().equals(delivered.subject()) || event.volgnummer() != delivered.sequence()) {
                wrongContent++;
            }
            if (previous != null && LOG_ORDER.compare(previous, event) >= 0) {
                outOfOrder++;
            }
            previous = event;
        }
        long extra = times.values().stream().mapToLong(n -> n - 1).sum();
        List<Written> missing = byId.values().stream()
                .filter(event -> event.dvId().equals(reader.dvId()) && !times.containsKey(event.id()))
                .sorted(LOG_ORDER)
                .toList();
        if (missing.isEmpty()
                && extra == 0
                && foreign + rolledBackDelivered + unknown + wrongContent + outOfOrder == 0) {
            return Optional.empty();
        }
        long missingHeld =
                missing.stream().filter(event -> heldOpen.contains(event.id())).count();
        return Optional.of(("seed %d, %s of DV %d: %d of %d events missing (%d of them from transactions held "
                        + "open; first: %s), %d extra deliveries of the same event, %d of another DV, %d rolled back, "
                        + "%d unknown, %d with another subject or sequence, %d out of (transactie_id, id) order")
                .formatted(
                        settings.seed(),
                        reader.label(),
                        dvIds.indexOf(reader.dvId()) + 1,
                        missing.size(),
                        expected(reader.dvId()),
                        missingHeld,
                        missing.stream()
                                .limit(5)
                                .map(event -> "event " + event.id() + " xid " + event.xid())
                                .toList(),
                        extra,
                        foreign,
                        rolledBackDelivered,
                        unknown,
                        wrongContent,
                        outOfOrder));
    }

    private long expected(UUID dvId) {
        return byId.values().stream().filter(event -> event.dvId().equals(dvId)).count();
    }

    private static final Comparator<Written> LOG_ORDER =
            Comparator.comparingLong(Written::xid).thenComparingLong(Written::id);

    /**
     * How often a reader got a lower sequence of a subject after a higher one: allowed (the DV orders per
     * subject), and it happens when a transaction with an older xid waits for a notification's row lock.
     */
    private long sequenceInversions() {
        long inversions = 0;
        for (ReaderResult reader : readers) {
            Map<UUID, Integer> highest = new HashMap<>();
            for (Reader.Delivered delivered : reader.delivered()) {
                Integer before = highest.get(delivered.subject());
                if (before != null && before > delivered.sequence()) {
                    inversions++;
                } else {
                    highest.put(delivered.subject(), delivered.sequence());
                }
            }
        }
        return inversions;
    }

    /** The run's figures on one line, prefixed {@code FEED-NO-SKIP:} for grep. */
    public String figures() {
        long heldCommitted = committed.stream().filter(Committed::heldOpen).count();
        double elapsed = elapsedNanos / 1e9;
        return ("FEED-NO-SKIP: seed=%d events=%d dvs=%d writers=%d (of which laggards=%d) readers=%d pages=%d "
                        + "transactions=%d committed=%d rolledBack=%d heldOpen=%d (committed %d, rolled back %d) "
                        + "rolledBackEvents=%d partitionCreated=%s eventsPerPartition=%s sequenceInversions=%d "
                        + "writePhase=%.1fs elapsed=%.1fs events/s=%.0f")
                .formatted(
                        settings.seed(),
                        committedEvents(),
                        dvIds.size(),
                        settings.threads(),
                        settings.laggards(),
                        readers.size(),
                        readers.stream().mapToLong(ReaderResult::pages).sum(),
                        committed.size() + rolledBackTransactions,
                        committed.size(),
                        rolledBackTransactions,
                        heldCommitted + heldRolledBack,
                        heldCommitted,
                        heldRolledBack,
                        rolledBack.size(),
                        createdPartition == null
                                ? "none"
                                : "%s at %.1fs".formatted(createdPartition, partitionCreatedNanos / 1e9),
                        partitions,
                        sequenceInversions(),
                        writeNanos / 1e9,
                        elapsed,
                        committedEvents() / elapsed);
    }
}
