package nl.overheid.moz.nmc.feed;

/**
 * Why a cursor cannot be used, in domain terms. {@link Unreadable} is the DV's mistake; the others mean
 * the position is gone and the DV restarts without a cursor.
 */
public abstract sealed class CursorRefused extends RuntimeException {

    private CursorRefused(String message) {
        super(message, null, false, false);
    }

    /** Not a cursor at all. */
    public static final class Unreadable extends CursorRefused {
        public Unreadable() {
            super("cursor is unreadable");
        }
    }

    /** A cursor in the NMC's shape that does not verify: an older format, a rotated key, or altered. */
    public static final class NotRecognised extends CursorRefused {
        public NotRecognised() {
            super("cursor no longer recognised");
        }
    }

    /** The cursor belongs to an earlier cluster epoch (before a restore or a promotion). */
    public static final class OtherEpoch extends CursorRefused {
        public OtherEpoch() {
            super("cursor of another cluster epoch");
        }
    }

    /** The DV has not used the cursor for longer than its max cursor age. */
    public static final class TooOld extends CursorRefused {
        public TooOld() {
            super("cursor older than the max cursor age");
        }
    }

    /** The cursor points into a part of the event log that retention dropped (design §10). */
    public static final class PartitionDropped extends CursorRefused {
        public PartitionDropped() {
            super("cursor points into a dropped part of the event log");
        }
    }

    /** The event the cursor points at is not the caller's, or is gone otherwise than by retention. */
    public static final class EventGone extends CursorRefused {
        public EventGone() {
            super("cursor points at no event of the caller");
        }
    }
}
