package nl.overheid.moz.nmc.feed;

import java.time.Instant;

/**
 * A position in the event log: cluster epoch + transaction id (xid8, as decimal text) + event id, plus the
 * moment the NMC handed it out. The epoch makes a cursor from before a restore or promotion recognisable
 * as gone; the issue time makes the max cursor age about how long ago the DV last read, not about how long
 * ago its last event happened (a quiet DV that keeps polling stays current). The DV sees it only as the
 * opaque, tamper-evident text of {@link CursorCodec}.
 */
public record Cursor(int epoch, String transactionId, long eventId, Instant issuedAt) {

    /** The position before the oldest event of an epoch. */
    public static Cursor start(int epoch, Instant issuedAt) {
        return new Cursor(epoch, "0", 0, issuedAt);
    }

    public boolean isStart() {
        return "0".equals(transactionId) && eventId == 0;
    }

    /** The same position, handed out again now. */
    public Cursor reissued(Instant now) {
        return new Cursor(epoch, transactionId, eventId, now);
    }
}
