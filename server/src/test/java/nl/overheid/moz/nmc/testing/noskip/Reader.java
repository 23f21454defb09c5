package nl.overheid.moz.nmc.testing.noskip;

import java.util.List;
import java.util.UUID;

/**
 * Something that hands a DV its events from a position it keeps itself: the feed's cursor now
 * ({@link FeedReader}), the webhook's delivery position later. {@link EventWorkload} checks any of them for
 * exactly-once delivery; a new kind of reader only implements this.
 *
 * <p>Called from one thread at a time, again and again while writers commit, then until a page is empty once
 * every writer transaction is below the watermark.
 */
public interface Reader {

    /** The DV whose events this reader delivers. */
    UUID dvId();

    /** A short label for reports (kind and page size), never a DV's name or any personal data. */
    String label();

    /** Delivers the next events after this reader's position and moves the position past them. */
    Page next();

    /** What one call delivered, in delivery order; empty when there was nothing to deliver. */
    record Page(List<Delivered> events) {

        public boolean isEmpty() {
            return events.isEmpty();
        }
    }

    /** One delivered event as the DV sees it: the event id, its subject (notification) and sequence. */
    record Delivered(long eventId, UUID subject, int sequence) {}
}
