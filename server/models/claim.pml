/*
 * Model 2: the claim protocol of the task engine, on the first send of one notification (design §6;
 * engine/TaskRepository, engine/OwnedTasks, engine/TaskWorker, sending/SendPipeline, receipts/ReceiptStore,
 * receipts/ReceiptProcessor, control/ControlDuty).
 *
 * What the code does, step by step, and what this model keeps of it:
 *   claim      one statement: a due task whose lease is null or past gets a new lease and claim_epoch + 1
 *              (FOR UPDATE SKIP LOCKED). Here: atomic; the claimer remembers the epoch.
 *   start      own transaction: the notification's lock, then the task row WHERE claim_epoch = mine
 *              (OwnedTasks). aangenomen -> in-verzending with attempt 1 (gepland); a re-claim reuses the
 *              planned attempt. It reads whether a POST was already made (verzoek_gedaan_op).
 *   lookup     only when a POST was made before: GET ?reference=<attempt id>; found -> commit that id.
 *   requested  own transaction under both locks: lease extended, verzoek_gedaan_op set. Only then the POST.
 *   call       POST /v2/notifications/email with reference = attempt id. NotifyNL creates the e-mail when the
 *              request arrives; the 201 may come back, or the client times out (Unavailable, may have
 *              arrived) while the request is still on its way.
 *   commit     own transaction under both locks: 201 -> attempt verzonden with NotifyNL's id (in-verzending
 *              -> verzonden, reconcile task planned), or the id is added as a duplicate if the attempt already
 *              has another; task deleted. Unavailable -> postponed (lease released).
 *   receipts   NotifyNL calls back once per e-mail (and may repeat the call); ReceiptStore stores it once
 *              (unique (attempt, notify id, status, completed_at)) and plans a verwerken task, unique per
 *              receipt (issue 18 §9; before: per (attempt, completed_at), ON CONFLICT DO NOTHING). The
 *              processor claims a task and in one transaction reads the attempt's unprocessed receipts,
 *              applies them (a gepland attempt is marked sent on the dead sender's behalf; an id it does not
 *              know is a duplicate; delivered -> bezorgd) and deletes its task and those of the receipts it
 *              applied.
 *   control    the control duty plans the missing task of a live notification (send, or reconcile when an
 *              attempt runs) and a receipt task for a stored receipt that has none.
 *
 * Crashes: a worker may die at every step (its in-memory state is gone, its transaction rolled back, its
 * lease stays until it expires): between claim and start, between start and the call, with the request on
 * the wire, between NotifyNL's 201 and the commit, and the receipt processor during its transaction. A live
 * worker's lease may also expire early (a pause longer than the lease), a bounded number of times.
 *
 * Properties:
 *   P1 (assertion) at most one e-mail per attempt, unless the task was claimed again while a call of an
 *      earlier claim was still on its way to NotifyNL (its lease expired, or it timed out and was postponed)
 *   P2 (assertion) no transaction of a claim writes after another claim took the task (no stale epoch)
 *   P3 (LTL, weak fairness) nothing is lost: eventually the attempt is bezorgd with every e-mail NotifyNL
 *      made for it recorded (its own id or a duplicate id), every stored receipt processed; it holds without
 *      the control duty too (run with -DNO_CONTROL_DUTY)
 *   P4 (assertion, issue 18 §9) no stored receipt waits for the control duty: every stored, unprocessed
 *      receipt has a receipt task after every step of the store and the processor
 *
 * Abstractions: one notification, one attempt (resends are model 1's); the reconcile and finalise tasks
 * are planned but not run (model 1); geldig_tot never passes here (model 1); NotifyNL's only outcome is
 * delivered and it calls back for every e-mail it made (it retries callbacks); time is only the order of
 * steps: a postponed task is due again at some later step; completed_at is 1 or 2 per e-mail.
 *
 * Deliberately broken variants (scripts/model-check requires the checker to reject each):
 *   -DBROKEN_NO_EPOCH_CHECK   OwnedTasks checks that the task row exists, not its claim epoch   (P2; with
 *                             -DNO_P2_ASSERT also P1: two workers call although no lease expired in flight)
 *   -DBROKEN_NO_LOOKUP        a re-claim calls NotifyNL again without looking up by reference    (P1)
 *   -DBROKEN_RECEIPT_TASK_PER_COMPLETED_AT  the receipt task unique per (attempt, completed_at)   (P4; with
 *                             -DNO_P4_ASSERT and -DNO_CONTROL_DUTY also P3)
 * -DNO_CONTROL_DUTY (no control duty; before issue 18 a broken variant) must hold: P3 needs no control duty.
 */

#define NWORK      2     /* send workers */
#ifndef MAXFAULTS
#define MAXFAULTS  2     /* crashes, early lease expiries, time-outs and unanswered lookups, in all */
#endif
#define MAXREQ     3     /* POSTs in all (a further POST is refused by NotifyNL with a 503) */

/* notification status (the part of the lifecycle this model needs) */
#define AANGENOMEN    0
#define IN_VERZENDING 1
#define VERZONDEN     2
#define BEZORGD       3
/* attempt status */
#define P_NONE     0
#define P_GEPLAND  1
#define P_VERZONDEN 2
#define P_BEZORGD  3
/* requests */
#define R_NONE    0
#define R_WIRE    1
#define R_ARRIVED 2

byte nstat = AANGENOMEN;
byte pstat = P_NONE;
bool pRequested = false;
byte pNotifyId = 0;         /* 0: none; e-mails are 1..MAXREQ */
byte pDups = 0;             /* bit k: e-mail k recorded as a duplicate */

/* the send task (taak, soort verzenden): exists from acceptance */
bool sExists = true;
bool sLeased = false;
/*
 * claim_epoch: a claim raises it and a worker writes only WHERE claim_epoch = the one its claim returned.
 * Only equality matters, so the model keeps, per worker, whether its claim is still the latest (a claim
 * makes every earlier one stale) instead of an ever-growing number: the same comparisons, finitely many
 * states.
 */
bool sMine[NWORK];          /* claim_epoch still equals the one worker w's claim returned */
byte sOwner = 255;          /* ghost: the worker of the latest claim */
bool holderAlive = false;   /* ghost: the latest claimer has not crashed */
bool rExists = false;       /* reconcile task (planned, not run here) */

/* NotifyNL */
byte emails = 0;            /* e-mails NotifyNL made for the attempt: 1..emails */
byte reqState[MAXREQ + 1];
byte reqEmail[MAXREQ + 1];
byte nreq = 0;
byte cbPending = 0;         /* bit k: e-mail k's callback not yet made */
byte rcvAt[MAXREQ + 1];     /* completed_at of e-mail k: 1 or 2 */

/* the receipt store and its tasks (verwerken, unique per receipt) */
byte rcvStored = 0;
byte rcvDone = 0;
/* receipt tasks by their unique key: the receipt itself (taak_verwerken_uk on ontvangst), or, broken, the
   attempt's completed_at (the key before issue 18) */
#ifdef BROKEN_RECEIPT_TASK_PER_COMPLETED_AT
#define TASKKEY(k) rcvAt[k]
#else
#define TASKKEY(k) (k)
#endif
bool vExists[MAXREQ + 1];
bool vLeased[MAXREQ + 1];
bool vMine[MAXREQ + 1];     /* the processor's claim of the task is the latest (its epoch) */
/* P4: a stored receipt not yet processed always has its receipt task (never waits for the control duty) */
#define UNTASKED(k) ((rcvStored & ~rcvDone & BIT(k)) != 0 && !vExists[TASKKEY(k)])
#ifdef NO_P4_ASSERT
#define P4 skip
#else
#define P4 assert(!UNTASKED(1) && !UNTASKED(2) && !UNTASKED(3))
#endif

/* the environment's budget */
byte faults = 0;
bool inCall[NWORK];         /* ghost: worker w recorded its POST and waits for the answer */
bool lostInFlight = false;  /* ghost: a claim happened while a POST of an earlier claim was on the wire */

#define BIT(k) (1 << (k))
#define KNOWN(k) (pNotifyId == (k) || (pDups & BIT(k)) != 0)

#ifdef BROKEN_NO_EPOCH_CHECK
#define OWNED(w) (sExists)
#else
#define OWNED(w) (sExists && sMine[w])
#endif

#ifdef NO_P2_ASSERT
#define P2(w) skip
#else
#define P2(w) assert(sOwner == (w))
#endif

#define CRASH(w) \
    if \
    :: atomic { faults < MAXFAULTS -> faults++; inCall[w] = false; if :: sOwner == (w) -> holderAlive = false :: else fi }; goto end_idle \
    :: skip \
    fi

/* some POST is still on the wire */
#define ON_WIRE (reqState[1] == R_WIRE || reqState[2] == R_WIRE || reqState[3] == R_WIRE)
/* a call is in flight: a worker between recording its POST (the lease extended for the call) and NotifyNL's
   answer or its time-out, or a POST still on the wire */
#define IN_FLIGHT (inCall[0] || inCall[1] || ON_WIRE)

proctype Worker(byte w) {
    bool requested;     /* the attempt had a POST before this claim */
    byte q;             /* my request */
    byte got;           /* e-mail id to commit; 0: Unavailable */
    byte k;
end_idle:
    atomic {
        sExists && !sLeased ->
        if :: IN_FLIGHT -> lostInFlight = true :: else fi;
        sLeased = true; sMine[0] = false; sMine[1] = false; sMine[w] = true; sOwner = w; holderAlive = true;
        q = 0; got = 0
    }
    CRASH(w);
    /* start */
    atomic {
        if
        :: OWNED(w) ->
            P2(w);
            if
            :: nstat == AANGENOMEN -> nstat = IN_VERZENDING; pstat = P_GEPLAND
            :: nstat != AANGENOMEN && pstat == P_GEPLAND -> skip        /* re-claim: the planned attempt */
            :: else -> sExists = false; sLeased = false; goto end_idle     /* nothing to send: complete */
            fi;
            requested = pRequested;
            sLeased = true; holderAlive = true                          /* the lease extended */
        :: else -> goto end_idle
        fi
    }
    CRASH(w);
#ifndef BROKEN_NO_LOOKUP
    if
    :: requested ->
        /* GET ?reference=: finds an e-mail NotifyNL made, or none, or cannot answer */
        atomic {
            if
            :: emails > 0 -> k = 1;
                do
                :: k < emails -> k++
                :: true -> break
                od;
                got = k; goto commit
            :: emails == 0 -> skip
            :: faults < MAXFAULTS -> faults++; got = 0; goto commit
            fi
        }
    :: else
    fi;
#endif
    /* under both locks: lease extended and the POST recorded before it is made */
    atomic {
        if
        :: OWNED(w) -> P2(w); pRequested = true; sLeased = true; holderAlive = true; inCall[w] = true
        :: else -> goto end_idle
        fi
    }
    CRASH(w);
    atomic {
        if
        :: nreq < MAXREQ -> nreq++; q = nreq; reqState[q] = R_WIRE
        :: else -> got = 0; inCall[w] = false; goto commit              /* 503: certainly not arrived */
        fi
    }
    CRASH(w);
    /* NotifyNL's 201, or a time-out while the request may still arrive */
    if
    :: atomic { reqState[q] == R_ARRIVED -> got = reqEmail[q]; inCall[w] = false }
    :: atomic { faults < MAXFAULTS -> faults++; got = 0; inCall[w] = false }   /* time-out */
    fi;
    CRASH(w);            /* between the 201 and the commit */
commit:
    atomic {
        if
        :: OWNED(w) ->
            P2(w);
            if
            :: got != 0 ->
                if
                :: pstat == P_GEPLAND ->
                    pstat = P_VERZONDEN; pNotifyId = got;
                    if :: nstat == IN_VERZENDING -> nstat = VERZONDEN :: else fi;
                    rExists = true
                :: pstat != P_GEPLAND && !KNOWN(got) -> pDups = pDups | BIT(got)
                :: else
                fi;
                sExists = false; sLeased = false
            :: else -> sLeased = false                                  /* postponed */
            fi
        :: else
        fi
    }
    goto end_idle
}

/* NotifyNL: a POST on the wire arrives (an e-mail is made and its 201 sent); callbacks, maybe repeated */
proctype NotifyNl() {
    byte k;
end:
    do
    :: atomic {
        ON_WIRE ->
        if                              /* any POST on the wire may arrive first */
        :: reqState[1] == R_WIRE -> k = 1
        :: reqState[2] == R_WIRE -> k = 2
        :: reqState[3] == R_WIRE -> k = 3
        fi;
        emails++;
        /* P1: a second e-mail only if a claim was made while a POST was on the wire */
        assert(emails <= 1 || lostInFlight);
        reqState[k] = R_ARRIVED; reqEmail[k] = emails;
        cbPending = cbPending | BIT(emails);
        if :: rcvAt[emails] = 1 :: rcvAt[emails] = 2 fi;
        k = 0
       }
    :: atomic {
        cbPending != 0 ->
        if
        :: (cbPending & BIT(1)) != 0 -> k = 1
        :: (cbPending & BIT(2)) != 0 -> k = 2
        :: (cbPending & BIT(3)) != 0 -> k = 3
        fi;
        cbPending = cbPending & ~BIT(k);
        /* ReceiptStore.store: the receipt once, then its task unless one exists for this completed_at */
        if
        :: (rcvStored & BIT(k)) == 0 ->
            rcvStored = rcvStored | BIT(k);
            if :: !vExists[TASKKEY(k)] -> vExists[TASKKEY(k)] = true :: else fi   /* ON CONFLICT DO NOTHING */
        :: else
        fi;
        k = 0
       }
    od
}

/* the verwerken worker */
proctype Processor() {
    byte c, seen, k;
end_idle:
    atomic {
        if
        :: vExists[1] && !vLeased[1] -> c = 1
        :: vExists[2] && !vLeased[2] -> c = 2
        :: vExists[3] && !vLeased[3] -> c = 3
        fi;
        vLeased[c] = true; vMine[c] = true
    }
    if
    :: atomic { faults < MAXFAULTS -> faults++ }; goto end_idle  /* dies before its transaction: the lease expires */
    :: skip
    fi;
    /* the transaction: task row owned, then the attempt's unprocessed receipts read (READ COMMITTED) ... */
    atomic {
        if
        :: vExists[c] && vMine[c] -> seen = rcvStored & ~rcvDone
        :: else -> goto end_idle
        fi
    }
    /* ... a receipt stored now is not in `seen`, and its task insert met this task's row: DO NOTHING */
    if
    :: atomic { faults < MAXFAULTS -> faults++ }; goto end_idle  /* dies during it: rolled back */
    :: skip
    fi;
    atomic {
        /* apply in completed_at order: only the outcome matters here, every receipt is a delivered */
        k = 1;
        do
        :: k <= MAXREQ ->
            if
            :: (seen & BIT(k)) != 0 ->
                if
                :: pstat == P_GEPLAND ->               /* the sender died between the 201 and its commit */
                    pstat = P_VERZONDEN; pNotifyId = k;
                    if :: nstat == IN_VERZENDING -> nstat = VERZONDEN :: else fi;
                    sExists = false; sLeased = false;  /* NotificationTasks.complete(verzenden) */
                    rExists = true
                :: pstat != P_GEPLAND && !KNOWN(k) -> pDups = pDups | BIT(k)
                :: else
                fi;
                if
                :: nstat == VERZONDEN -> nstat = BEZORGD; pstat = P_BEZORGD; rExists = false
                :: else
                fi;
                rcvDone = rcvDone | BIT(k);
#ifndef BROKEN_RECEIPT_TASK_PER_COMPLETED_AT
                vExists[k] = false; vLeased[k] = false   /* the tasks of the receipts it applied */
#endif
            :: else
            fi;
            k++
        :: else -> break
        od;
        vExists[c] = false; vLeased[c] = false; vMine[c] = false; c = 0; seen = 0;
        P4
    }
    goto end_idle
}

/* time passing: a crashed claimer's lease always expires; a live one's a bounded number of times */
proctype Leases() {
end:
    do
    :: atomic { sLeased && !holderAlive -> sLeased = false }
    :: atomic { sLeased && holderAlive && faults < MAXFAULTS -> faults++; sLeased = false; holderAlive = false }
    :: atomic { vLeased[1] -> vLeased[1] = false }    /* only ever held by a processor that died */
    :: atomic { vLeased[2] -> vLeased[2] = false }
    :: atomic { vLeased[3] -> vLeased[3] = false }
    od
}

#ifndef NO_CONTROL_DUTY
proctype ControlDuty() {
end:
    do
    /* a live notification without a task (verwerken tasks do not count) */
    :: atomic { (nstat == AANGENOMEN || nstat == IN_VERZENDING) && !sExists && !rExists -> sExists = true; sLeased = false }
    :: atomic { nstat == VERZONDEN && !sExists && !rExists ->
            if :: pstat == P_VERZONDEN -> rExists = true :: else -> sExists = true; sLeased = false fi }
    /* a stored receipt without its task (a backstop: P4 says it never happens) */
    :: atomic { UNTASKED(1) || UNTASKED(2) || UNTASKED(3) ->
            if
            :: UNTASKED(1) -> vExists[TASKKEY(1)] = true
            :: UNTASKED(2) -> vExists[TASKKEY(2)] = true
            :: UNTASKED(3) -> vExists[TASKKEY(3)] = true
            fi }
    od
}
#endif

/*
 * When every process is blocked the run has stopped. LTL reads a stopped run as its last state repeated
 * forever, but spin's weak-fairness search (-f) does not: it would never report a stop short of the goal.
 * This process moves only then (timeout: nothing else can), so such a stop becomes a cycle the search sees.
 */
bit stutter;
proctype Stopped() {
end:
    do
    :: timeout -> stutter = 1 - stutter
    od
}

/* P3: eventually, for good, the attempt is bezorgd and everything NotifyNL did is recorded */
#define ALL_KNOWN ((emails < 1 || KNOWN(1)) && (emails < 2 || KNOWN(2)) && (emails < 3 || KNOWN(3)))
ltl nothingLost { <> [] (pstat == P_BEZORGD && rcvDone == rcvStored && cbPending == 0 && !ON_WIRE && ALL_KNOWN) }

init {
    reqState[1] = R_NONE;
    atomic {
        run Worker(0);
        run Worker(1);
        run NotifyNl();
        run Processor();
        run Leases();
        run Stopped();
#ifndef NO_CONTROL_DUTY
        run ControlDuty()
#endif
    }
}
