package nl.overheid.moz.nmc.simulator;

import java.util.List;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * The simulator's notifications table, in memory. Notify keeps notifications for 7 days by default; the
 * simulator keeps them until {@link #clear()} or the end of the process.
 *
 * <p>Thread-safe without locks: concurrent maps; readers see every notification whose {@link #add} returned.
 */
final class NotificationStore {

    private final AtomicLong sequence = new AtomicLong();
    private final ConcurrentHashMap<UUID, StoredNotification> byId = new ConcurrentHashMap<>();
    private final ConcurrentSkipListMap<Long, StoredNotification> bySequence = new ConcurrentSkipListMap<>();

    long nextSequence() {
        return sequence.incrementAndGet();
    }

    void add(StoredNotification notification) {
        byId.put(notification.id(), notification);
        bySequence.put(notification.sequence(), notification);
    }

    /** Replaces a stored notification by a later state of itself (same id and sequence). */
    void replace(StoredNotification notification) {
        add(notification);
    }

    /** Forgets one notification, as Notify does when its retention period ends. */
    void remove(UUID id) {
        StoredNotification removed = byId.remove(id);
        if (removed != null) {
            bySequence.remove(removed.sequence());
        }
    }

    Optional<StoredNotification> find(UUID id) {
        return Optional.ofNullable(byId.get(id));
    }

    /** All notifications, oldest first. */
    List<StoredNotification> all() {
        return List.copyOf(bySequence.values());
    }

    /**
     * One page of Notify's list endpoint: newest first, only notifications created before {@code olderThan}
     * when given (none at all when that id is unknown, as in Notify), at most {@code limit}.
     */
    List<StoredNotification> page(Predicate<StoredNotification> filter, UUID olderThan, int limit) {
        NavigableMap<Long, StoredNotification> candidates = bySequence;
        if (olderThan != null) {
            StoredNotification anchor = byId.get(olderThan);
            if (anchor == null) {
                return List.of();
            }
            candidates = bySequence.headMap(anchor.sequence(), false);
        }
        return candidates.descendingMap().values().stream()
                .filter(filter)
                .limit(limit)
                .toList();
    }

    void clear() {
        byId.clear();
        bySequence.clear();
    }
}
