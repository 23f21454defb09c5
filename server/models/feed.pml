/*
 * Model 3: the feed's visibility watermark (design §8; feed/EventRepository.EVENT_READ_AFTER, the same
 * read the webhook delivery uses).
 *
 * The real query, per page:
 *     WHERE (transactie_id, id) > (cursor.xid, cursor.id)
 *       AND transactie_id < pg_snapshot_xmin(pg_current_snapshot())
 *     ORDER BY transactie_id, id  LIMIT :limit
 * and the next cursor is the page's last (transactie_id, id), or the same position for an empty page.
 *
 * Writers are the transactions of the transition function: each gets its xid8 at its first write (the row
 * lock of the notification already needs one), takes event ids from the identity sequence (not
 * transactional: ids are handed out in call order, across transactions) and commits or rolls back, in any
 * order. So ids are taken in one order and made visible in another, and xids in yet another.
 *
 * Readers page through the log with a cursor, each read one statement under one snapshot (atomic here).
 *
 * Property (checked as assertions): every committed event is delivered exactly once per reader, none is
 * skipped, and no event of a rolled-back transaction is delivered.
 *
 * Abstractions: one DV (the dv_id filter only narrows the set); xids and ids are small counters starting at
 * 1 (only their order matters); the partitions, the cursor's signature and its age are left out (they
 * refuse a cursor, they never move it); a reader's own transaction takes no xid (if it did, its xid is the
 * newest and only lowers the watermark to itself: nothing below it is still running).
 *
 * Deliberately broken variants (scripts/model-check requires the checker to reject each):
 *   -DBROKEN_NO_WATERMARK   read without the transactie_id < pg_snapshot_xmin conjunct
 *   -DBROKEN_ORDER_BY_ID    order and position by the event id alone (the watermark kept)
 *   -DBROKEN_CURSOR_INCLUSIVE  continue from >= the cursor instead of > (a page repeats its last event)
 */

#define NW 3            /* writer transactions */
#define NE 4            /* events: writer 0 writes two, writers 1 and 2 one each */
#define NR 2            /* readers (a feed reader and a webhook position, say) */

#define RUNNING   0
#define COMMITTED 1
#define ABORTED   2

byte nextXid = 1;       /* the next xid8 PostgreSQL hands out */
byte nextId = 1;        /* the event id sequence */
byte txXid[NW];         /* 0: no xid yet */
byte txState[NW];
byte evXid[NE];
byte evId[NE];          /* 0: not inserted (yet) */
byte evTx[NE];
byte delivered[NR * NE];
byte writersDone = 0;

/* writer w inserts event e: its xid first (at its first write), then an id from the sequence */
inline insertEvent(w, e) {
    atomic {
        if
        :: txXid[w] == 0 -> txXid[w] = nextXid; nextXid++
        :: else -> skip
        fi;
        evTx[e] = w; evXid[e] = txXid[w]; evId[e] = nextId; nextId++
    }
}

proctype Writer(byte w; byte firstEvent; byte events) {
    byte i = 0;
    /* some transactions take their xid (row lock) well before they write their event */
    if
    :: atomic { txXid[w] = nextXid; nextXid++ }
    :: skip
    fi;
    do
    :: i < events -> insertEvent(w, firstEvent + i); i++
    :: else -> break
    od;
    atomic {
        if
        :: txState[w] = COMMITTED
        :: w == NW - 1 -> txState[w] = ABORTED   /* one writer may roll back */
        fi;
        writersDone++
    }
}

/* (x1, i1) > (x2, i2) in the order the reader uses */
#ifdef BROKEN_ORDER_BY_ID
#define AFTER(x1, i1, x2, i2)  ((i1) > (i2))
#else
#define AFTER(x1, i1, x2, i2)  ((x1) > (x2) || ((x1) == (x2) && (i1) > (i2)))
#endif

#ifdef BROKEN_CURSOR_INCLUSIVE
#define PAST_CURSOR(x, i)  (AFTER(x, i, curXid, curId) || ((x) == curXid && (i) == curId))
#else
#define PAST_CURSOR(x, i)  AFTER(x, i, curXid, curId)
#endif

#ifdef BROKEN_NO_WATERMARK
#define BELOW_WATERMARK(e)  true
#else
#define BELOW_WATERMARK(e)  (evXid[e] < xmin)
#endif

#define VISIBLE(e)  (evId[e] != 0 && txState[evTx[e]] == COMMITTED)

proctype Reader(byte r; byte limit) {
    byte curXid = 0, curId = 0;     /* no cursor: from the start */
    byte xmin, e, best, n, w;
    bool drained = false;
    do
    :: !drained ->
        atomic {
            /* the snapshot: the oldest xid still running, else the next one to be handed out */
            xmin = nextXid; w = 0;
            do
            :: w < NW -> if :: txXid[w] != 0 && txState[w] == RUNNING && txXid[w] < xmin -> xmin = txXid[w] :: else fi; w++
            :: else -> break
            od;
            /* one page: the `limit` smallest visible positions past the cursor, in order */
            n = 0;
            do
            :: n < limit ->
                best = NE; e = 0;
                do
                :: e < NE ->
                    if
                    :: VISIBLE(e) && BELOW_WATERMARK(e) && PAST_CURSOR(evXid[e], evId[e]) &&
                       (best == NE || AFTER(evXid[best], evId[best], evXid[e], evId[e])) -> best = e
                    :: else
                    fi;
                    e++
                :: else -> break
                od;
                if
                :: best == NE -> break
                :: else ->
                    delivered[r * NE + best]++;
                    assert(delivered[r * NE + best] <= 1);            /* exactly once */
                    curXid = evXid[best]; curId = evId[best];
                    n++
                fi
            :: else -> break
            od;
            /* an empty page after every writer finished: the reader has everything it will get */
            drained = (n == 0 && writersDone == NW)
        }
    :: drained -> break
    od;
    /* none skipped, nothing of a rolled-back transaction */
    e = 0;
    do
    :: e < NE ->
        assert(txState[evTx[e]] != COMMITTED || delivered[r * NE + e] == 1);
        assert(txState[evTx[e]] != ABORTED || delivered[r * NE + e] == 0);
        e++
    :: else -> break
    od
}

init {
    atomic {
        run Writer(0, 0, 2);
        run Writer(1, 2, 1);
        run Writer(2, 3, 1);
        run Reader(0, 1);
        run Reader(1, 2)
    }
}
