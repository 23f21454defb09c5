package nl.overheid.moz.nmc.db;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Groups the writes of one key (for acceptance a DV and regime; for the processing log its one store) that arrive while an earlier group of that key is being
 * written, so they are written together: at most one group per key is in flight, and whoever arrives while it
 * is holds on until it is done and then goes with everyone else who came meanwhile (up to {@code maxSize}).
 * The window is therefore the previous group's own write: a request that finds nothing in flight is written at
 * once (no timer, no delay at low load), and under load the groups grow by themselves. The thread that
 * writes is a member's own request thread (the first waiting one), never a thread of this class, and it hands
 * the next group on to the next waiting member before it answers, so no member waits for a group after its own.
 *
 * @param <K> the key requests are grouped by
 * @param <M> a member's request
 * @param <R> a member's outcome
 */
public final class GroupCommit<K, M, R> {

    /** Writes one group: completes every member, with its outcome or its own failure. */
    @FunctionalInterface
    public interface Writer<M, R> {
        void write(List<Member<M, R>> group);
    }

    /** One request in a group, and how it ended. */
    public static final class Member<M, R> {
        private final M request;
        private final CompletableFuture<R> done = new CompletableFuture<>();
        /** Completed when this member is to write the next group. */
        private final CompletableFuture<Void> turn = new CompletableFuture<>();

        private Member(M request) {
            this.request = request;
        }

        public M request() {
            return request;
        }

        public void complete(R outcome) {
            done.complete(outcome);
        }

        public void fail(RuntimeException failure) {
            done.completeExceptionally(failure);
        }

        public boolean answered() {
            return done.isDone();
        }
    }

    private static final class Line<M, R> {
        private final ArrayDeque<Member<M, R>> waiting = new ArrayDeque<>();
        private boolean writing;
    }

    private final int maxSize;
    private final Writer<M, R> writer;
    private final ConcurrentMap<K, Line<M, R>> lines = new ConcurrentHashMap<>();

    public GroupCommit(int maxSize, Writer<M, R> writer) {
        if (maxSize < 1) {
            throw new IllegalArgumentException("a group holds at least one request");
        }
        this.maxSize = maxSize;
        this.writer = writer;
    }

    /** Members waiting for a group of their own to be written, over all keys (a gauge). */
    public int waiting() {
        int total = 0;
        for (Line<M, R> line : lines.values()) {
            synchronized (line) {
                total += line.waiting.size();
            }
        }
        return total;
    }

    /**
     * Writes {@code request} in a group of its key and returns its outcome once that group is done; throws what
     * its own write threw.
     */
    public R submit(K key, M request) {
        Member<M, R> me = new Member<>(request);
        Line<M, R> line = lines.computeIfAbsent(key, k -> new Line<>());
        boolean lead;
        synchronized (line) {
            line.waiting.addLast(me);
            lead = !line.writing;
            line.writing = true;
        }
        if (!lead) {
            try {
                CompletableFuture.anyOf(me.done, me.turn).join();
            } catch (CompletionException e) {
                // answered with a failure: rethrown below
            }
        }
        if (!me.done.isDone()) {
            write(line);
        }
        try {
            return me.done.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException failure ? failure : e;
        }
    }

    /** Writes the next group of the line (this member heads it), then hands the line on. */
    private void write(Line<M, R> line) {
        List<Member<M, R>> group = new ArrayList<>();
        synchronized (line) {
            while (group.size() < maxSize && !line.waiting.isEmpty()) {
                group.add(line.waiting.pollFirst());
            }
        }
        try {
            writer.write(group);
        } catch (RuntimeException e) {
            group.forEach(m -> m.fail(e));
        } finally {
            // A member the writer left unanswered must not wait for ever.
            group.stream()
                    .filter(m -> !m.answered())
                    .forEach(m -> m.fail(new IllegalStateException("the group's write gave this member no outcome")));
            synchronized (line) {
                Member<M, R> next = line.waiting.peekFirst();
                if (next == null) {
                    line.writing = false;
                } else {
                    next.turn.complete(null);
                }
            }
        }
    }
}
