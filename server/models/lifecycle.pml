/*
 * Model 1: the lifecycle of one notification and its receipts (design §7; lifecycle/Transitions and the
 * trigger's toegestane_overgang, sending/SendPipeline, receipts/ReceiptRules, ReceiptProcessor, Reconciler,
 * Finaliser, acceptance/Annulering, control/ControlDuty).
 *
 * One notification (decentralised), at most two attempts. NotifyNL reports each e-mail's outcome once or
 * twice (a first outcome, then maybe a later one: a bounce after a delivery, a late delivery after a
 * temporary failure, a second delivery report), with completed_at; callbacks arrive late, in any order,
 * twice (stored once) or never. Reconciliation asks NotifyNL and finds the current outcome, nothing yet
 * (and asks again, until NotifyNL's retention has passed), or 404. geldig_tot passes at any moment; the DV
 * may cancel at any moment; the MEBV period elapses on a small clock.
 *
 * Each handler transaction is one atomic step here (it holds the notification's row lock, so they
 * serialise); the send task's several transactions are separate steps with the NotifyNL call between them.
 * The receipt rules are transliterated from ReceiptRules.judge: every situation this model reaches is
 * written out (scripts/model-check, export run) and compared with the committed table
 * server/models/lifecycle.receipts.tsv, which ReceiptRulesModelTest replays through the real function. The
 * allowed pairs are not written here: scripts/model-check generates ALLOWED() from the trigger's
 * toegestane_overgang (sql/.../V2__toegestane_overgang.sql) into build/allowed.pml.
 *
 * Properties:
 *   P1 (LTL, weak fairness) every run ends in a terminal status
 *   P2 (assertion) every transition is an allowed pair of the trigger's table
 *   P3 (assertion) definitief-bezorgd only from bezorgd, and not before the MEBV period after the delivery
 *      it rests on has passed
 *   P4 (assertion) a delivered on any attempt is never lost: a delivered receipt judged while the
 *      notification is verzonden or bezorgstatus-onbekend, and not older than the last outcome applied on
 *      its attempt, makes it bezorgd; and bezorgd is left only by a failure receipt on the attempt it
 *      rests on (or by the finaliser): never by a send, a reconciliation, a cancel or geldig_tot
 *   P5 (assertion) no attempt starts after geldig_tot: neither created nor sent (its POST recorded) once
 *      geldig_tot has passed
 *   P6 (assertion, issue 18 §2) the delivery proof is the first delivery: while the notification stays
 *      bezorgd, its bezorgdOp (the proof of the attempt it rests on) and the finalise task's due do not move,
 *      unless a failure within the period undid the proof and the other attempt's recorded delivery holds
 *   P7 (assertion, issue 18 §3) a receipt that is not older than the last one applied and has a known status
 *      leaves that outcome on its attempt and ends the attempt's reconciliation, whatever it does to the
 *      notification; only a repeated delivered on an attempt already bezorgd changes nothing
 *   P8 (assertion, issue 18 §4) every permanent failure is reported (an ongeldig-melden planned for its
 *      attempt), whatever the transition; the model's notification is centralised for this rule
 *
 * Abstractions (the claim protocol, crashes and leases are model 2's):
 *   - one worker per task kind; a task is "open", "claimed" or absent, and a transaction of a claim whose
 *     task was completed or planned anew meanwhile writes nothing (the epoch check of model 2);
 *   - receipt tasks: a stored, unprocessed receipt is processed by one step that applies all of its
 *     attempt's unprocessed receipts in completed_at order (the receipt task per receipt and the
 *     control duty's repair of a missing one are model 2's);
 *   - time: completed_at and the clock take the values 1..3; clock value 4 is "much later": every timer
 *     is due. MEBV period = 1, finalise margin = period + callback window = 2. NotifyNL's clock is ours.
 *     The liveness run (-DLIVENESS) uses a shorter clock (-DLATER=3) and leaves out the NMC-internal
 *     failure, the unknown status and the repeated callback, which end a run or change nothing;
 *   - reconciliation asks at any moment after its task is planned and at most once more per attempt before
 *     NotifyNL's retention has passed; NotifyNL's answer carries the outcome's own completed_at;
 *   - at most one outage of NotifyNL (a time-out after which the e-mail may or may not exist), one
 *     NMC-internal failure (max_pogingenteller = 1: it exhausts the send task), one repeated callback and
 *     one receipt with a status the NMC does not know; no Profielservice and no erasure. The report of an
 *     invalid address is its planning (poging.ongeldig_gemeld_op): the model's notification counts as
 *     centralised for P8, the decentralised regime differs only in planning none;
 *   - attempt 2 may report twice too (slot 5: a bounce or temporary failure after its delivery), so a failure
 *     within the period on the attempt bezorgd rests on meets a delivery recorded on the other one.
 *
 * Deliberately broken variants (scripts/model-check requires the checker to reject each):
 *   -DBROKEN_NO_RECONCILIATION      no reconcile task: a lost callback strands the notification      (P1)
 *   -DBROKEN_CANCEL_ANY             the cancel does not check for aangenomen                        (P2)
 *   -DBROKEN_NO_MARGIN              the finalise task is due at the delivery itself, not after the period (P3)
 *   -DBROKEN_DELIVERED_ONLY_RUNNING delivered counts only on a running attempt (the rule before ADR 0024) (P4)
 *   -DBROKEN_NO_EXPIRY_RECHECK      the POST is recorded without checking geldig_tot again          (P5)
 *   -DBROKEN_DELIVERED_AGAIN_MOVES_PROOF a repeated delivered moves the proof and the finalise task   (P6)
 *   -DBROKEN_RECORD_ONLY            a receipt that changes the notification nothing is only a row     (P7)
 *   -DBROKEN_REPORT_ON_TRANSITION_ONLY only a permanent failure that causes a transition is reported  (P8)
 */

#include "build/allowed.pml"

/* notificatie.status; NONE is the van of the acceptance */
#define NONE                  0
#define AANGENOMEN            1
#define IN_VERZENDING         2
#define VERZONDEN             3
#define BEZORGD               4
#define DEFINITIEF_BEZORGD    5
#define NIET_BEZORGBAAR       6
#define TECHNISCH_MISLUKT     7
#define BEZORGSTATUS_ONBEKEND 8
#define VERLOPEN              9
#define GEANNULEERD           10
#define TERMINAL(s) ((s) >= DEFINITIEF_BEZORGD)

/* poging.status */
#define P_NONE        0
#define P_GEPLAND     1
#define P_VERZONDEN   2
#define P_BEZORGD     3
#define P_TIJDELIJK   4
#define P_PERMANENT   5
#define P_TECHNISCH   6
#define P_ONBEKEND    7
#define RUNNING(p) ((p) == P_VERZONDEN || (p) == P_ONBEKEND)

/* ReceiptStatus */
#define DELIVERED   1
#define PERMANENT   2
#define TEMPORARY   3
#define TECHNICAL   4
#define UNKNOWN     5

/* ReceiptRules.Decision */
#define D_RECORD    1
#define D_UNKNOWN   2
#define D_DELIVERED 3
#define D_AGAIN     4
#define D_ENDS      5
#define D_RESEND    6
#define D_RECORDED  7   /* issue 18 §3: recorded on its attempt (status, time), its reconciliation ended */
#define D_MOVES     8   /* issue 18 §3: the basis failed within the period, the other attempt's delivery holds */

/* Reden */
#define RD_NONE         0
#define RD_ONBEREIKBAAR 1
#define RD_TECHNISCH    2
#define RD_VERLOPEN     3

/* tasks */
#define T_NONE    0
#define T_OPEN    1
#define T_CLAIMED 2

#define PERIOD 1
#define MARGIN 2
#ifndef LATER
#define LATER  4        /* the liveness run uses 3: completed_at 1..2, the period's length cannot stop a run */
#endif

byte n = AANGENOMEN;
bool expired = false;           /* geldig_tot has passed */
byte now = 1;

/* attempts 1 and 2 (index 0 unused) */
byte pst[3];
bool preq[3];                   /* verzoek_gedaan_op: a POST was made */
byte plast[3];                  /* ontvangst_completed_at: completed_at of the last applied outcome; 0: none */
byte pproof[3];                 /* bezorgd_op: the delivery proof bezorgd rests on (first delivered); 0: none */
bool reported[3];               /* ongeldig_gemeld_op: the attempt's invalid-address report is planned */
byte latest = 0;                /* the latest attempt's number */

/*
 * NotifyNL: per attempt, whether the e-mail exists and its reports. Receipt slots: 2 and 3 are attempt 1's
 * first and later report, 4 and 5 attempt 2's (slots 0, 1 unused).
 */
#define NSLOT 6
bool mail[3];
byte rStatus[NSLOT];            /* 0: NotifyNL has not reported it (yet) */
byte rAt[NSLOT];                /* its completed_at */
byte cb[NSLOT];                 /* callback: 0 none yet, 1 on its way, 2 made or lost */
byte stored[NSLOT];             /* the receipt store: 0 not stored, 1 stored, 2 processed */
#define CB_NONE 0
#define CB_WAY  1
#define CB_DONE 2

/* tasks of the notification (unique per kind, as taak_notificatie_soort_uk) */
byte sTask = T_OPEN;            /* verzenden, planned at acceptance */
byte rTask = 0;                 /* reconcilieren: the attempt it is about; 0: none */
byte rRounds[3];                /* reconciliations that found no outcome, per attempt */
bool fTask = false;             /* vaststellen */
byte fDue;

/* budgets of the environment */
bool outage = false, internal = false;

/* the DV's bezorgdOp: the proof of the attempt bezorgd rests on */
#define PROOF ((pproof[1] != 0) -> pproof[1] : pproof[2])

/* ghosts */
bool byBasisReceipt = false;    /* the transition is a receipt's, on the attempt bezorgd rests on */

inline transition(naar) {
    assert(ALLOWED(n, naar));                                            /* P2 */
    /* P4, second half: bezorgd is left only by the finaliser or a receipt on the attempt it rests on */
    assert(n != BEZORGD || naar == DEFINITIEF_BEZORGD || byBasisReceipt);
#ifdef EXPORT
    printf("PAIR\t"); prN(n); printf("\t"); prN(naar); printf("\n");
#endif
    n = naar
}

/* NotificationTasks.completeAll: every task but the receipt tasks (the erasure task is not modelled) */
inline completeAll() {
    sTask = T_NONE; rTask = 0; fTask = false
}

#ifdef EXPORT
inline prN(s) {
    if
    :: s == NONE -> printf("-")
    :: s == AANGENOMEN -> printf("aangenomen")
    :: s == IN_VERZENDING -> printf("in-verzending")
    :: s == VERZONDEN -> printf("verzonden")
    :: s == BEZORGD -> printf("bezorgd")
    :: s == DEFINITIEF_BEZORGD -> printf("definitief-bezorgd")
    :: s == NIET_BEZORGBAAR -> printf("niet-bezorgbaar")
    :: s == TECHNISCH_MISLUKT -> printf("technisch-mislukt")
    :: s == BEZORGSTATUS_ONBEKEND -> printf("bezorgstatus-onbekend")
    :: s == VERLOPEN -> printf("verlopen")
    :: s == GEANNULEERD -> printf("geannuleerd")
    fi
}
inline prP(s) {
    if
    :: s == P_NONE -> printf("-")
    :: s == P_GEPLAND -> printf("gepland")
    :: s == P_VERZONDEN -> printf("verzonden")
    :: s == P_BEZORGD -> printf("bezorgd")
    :: s == P_TIJDELIJK -> printf("tijdelijk-mislukt")
    :: s == P_PERMANENT -> printf("permanent-mislukt")
    :: s == P_TECHNISCH -> printf("technisch-mislukt")
    :: s == P_ONBEKEND -> printf("onbekend")
    fi
}
inline prR(s) {
    if
    :: s == DELIVERED -> printf("DELIVERED")
    :: s == PERMANENT -> printf("PERMANENT_FAILURE")
    :: s == TEMPORARY -> printf("TEMPORARY_FAILURE")
    :: s == TECHNICAL -> printf("TECHNICAL_FAILURE")
    :: s == UNKNOWN -> printf("UNKNOWN")
    fi
}
inline prB(b) {
    if :: b -> printf("true") :: else -> printf("false") fi
}
inline prD(d) {
    if
    :: d == D_RECORD -> printf("RecordOnly")
    :: d == D_UNKNOWN -> printf("UnknownStatus")
    :: d == D_DELIVERED -> printf("Delivered")
    :: d == D_AGAIN -> printf("DeliveredAgain")
    :: d == D_ENDS -> printf("Ends")
    :: d == D_RESEND -> printf("Resend")
    :: d == D_RECORDED -> printf("Recorded")
    :: d == D_MOVES -> printf("ProofMoves")
    fi
}
inline prRd(r) {
    if
    :: r == RD_NONE -> printf("-")
    :: r == RD_ONBEREIKBAAR -> printf("onbereikbaar")
    :: r == RD_TECHNISCH -> printf("technisch")
    :: r == RD_VERLOPEN -> printf("verlopen")
    fi
}
#endif

/*
 * ReceiptRules.judge, transliterated. In: n, number, pst[number], older, rs, basis, within, expired.
 * Out: d (kind), dOut (the attempt's new status; P_NONE: keeps it), dNaar (NONE: no transition), dReden,
 * dFrom (fromBezorgd).
 */
inline outcomeOf(rs, o) {
    if
    :: rs == DELIVERED -> o = P_BEZORGD
    :: rs == PERMANENT -> o = P_PERMANENT
    :: rs == TEMPORARY -> o = P_TIJDELIJK
    :: rs == TECHNICAL -> o = P_TECHNISCH
    :: rs == UNKNOWN -> o = P_NONE
    fi
}
inline unreachable(from) {
    d = D_ENDS; outcomeOf(rs, dOut); dNaar = NIET_BEZORGBAAR; dReden = RD_ONBEREIKBAAR; dFrom = from
}
inline resendOrEnd(from) {
    outcomeOf(rs, dOut); dFrom = from;
    if
    :: number >= 2 && rs == TEMPORARY -> d = D_ENDS; dNaar = NIET_BEZORGBAAR; dReden = RD_ONBEREIKBAAR
    :: number >= 2 && rs != TEMPORARY -> d = D_ENDS; dNaar = TECHNISCH_MISLUKT; dReden = RD_TECHNISCH
    :: number < 2 && expired -> d = D_ENDS; dNaar = VERLOPEN; dReden = RD_VERLOPEN
    :: number < 2 && !expired -> d = D_RESEND; dNaar = (from -> VERZONDEN : NONE)
    fi
}
#ifdef BROKEN_DELIVERED_ONLY_RUNNING
#define DELIVERED_ANY_ATTEMPT false
#else
#define DELIVERED_ANY_ATTEMPT (rs == DELIVERED && (n == VERZONDEN || n == BEZORGSTATUS_ONBEKEND))
#endif
/* a late permanent-failure corrects bezorgstatus-onbekend on any attempt, like a late delivered */
#define BOUNCED_ON_ONBEKEND (rs == PERMANENT && n == BEZORGSTATUS_ONBEKEND)
/* a receipt that changes nothing for the notification: recorded on its attempt (issue 18 §3) */
inline recorded() {
    if
    :: rs == DELIVERED && pst[number] == P_BEZORGD -> d = D_AGAIN        /* a repeat: the first is the proof */
    :: else ->
#ifdef BROKEN_RECORD_ONLY
        d = D_RECORD                                                     /* the rule before issue 18 */
#else
        d = D_RECORDED; outcomeOf(rs, dOut)
#endif
    fi
}
inline judge() {
    d = D_RECORD; dOut = P_NONE; dNaar = NONE; dReden = RD_NONE; dFrom = false;
    if
    :: rs == UNKNOWN -> d = D_UNKNOWN
    :: rs != UNKNOWN && older -> d = D_RECORD
    :: rs != UNKNOWN && !older && DELIVERED_ANY_ATTEMPT -> d = D_DELIVERED; dOut = P_BEZORGD; dNaar = BEZORGD
    :: rs != UNKNOWN && !older && !DELIVERED_ANY_ATTEMPT && BOUNCED_ON_ONBEKEND -> unreachable(false)
    :: else ->
        if
        :: RUNNING(pst[number]) && n == VERZONDEN ->
            if
            :: rs == DELIVERED -> d = D_DELIVERED; dOut = P_BEZORGD; dNaar = BEZORGD
            :: rs == PERMANENT -> unreachable(false)
            :: rs == TEMPORARY || rs == TECHNICAL -> resendOrEnd(false)
            fi
        :: RUNNING(pst[number]) && n == BEZORGSTATUS_ONBEKEND && rs == DELIVERED ->
            d = D_DELIVERED; dOut = P_BEZORGD; dNaar = BEZORGD
        :: !RUNNING(pst[number]) && n == BEZORGD && basis && within ->
            if
            :: rs == DELIVERED -> d = D_AGAIN
            :: (rs == PERMANENT || rs == TEMPORARY) && other -> d = D_MOVES; outcomeOf(rs, dOut)
            :: rs == PERMANENT && !other -> unreachable(true)
            :: rs == TEMPORARY && !other -> resendOrEnd(true)
            :: rs == TECHNICAL -> recorded()
            fi
        :: else -> recorded()
        fi
    fi
}

/* the send task (SendPipeline); `a` is the attempt of the job. DONE forgets the job and waits for a task. */
#define DONE a = 0; requested = false; maybe = false; result = 0; goto end_idle
proctype Sender() {
    byte a;
    bool requested, maybe;      /* maybe: an Unavailable that may have arrived */
    byte result;                /* 1 accepted, 2 rejected (400), 3 unavailable */
end_idle:
    atomic { sTask == T_OPEN -> sTask = T_CLAIMED; a = 0; requested = false; maybe = false; result = 0 }
    /* an NMC-internal failure before anything committed: max_pogingenteller 1 exhausts the task */
    if
#ifndef LIVENESS
    :: atomic {
        !internal -> internal = true;
        if
        :: sTask == T_CLAIMED ->
            if
            :: n == AANGENOMEN || n == IN_VERZENDING || n == VERZONDEN -> transition(TECHNISCH_MISLUKT); completeAll()
            :: else -> sTask = T_NONE
            fi
        :: else
        fi;
        DONE }
#endif
    :: skip
    fi;
    /* start (the claim's transaction) */
    atomic {
        if
        :: sTask != T_CLAIMED -> DONE
        :: else
        fi;
        if
        :: n == AANGENOMEN && expired -> transition(VERLOPEN); completeAll(); DONE
        :: n == AANGENOMEN && !expired ->
            assert(!expired);                                            /* P5 */
            transition(IN_VERZENDING); latest = 1; pst[1] = P_GEPLAND; a = 1
        :: (n == IN_VERZENDING || n == VERZONDEN) && latest > 0 && pst[latest] == P_GEPLAND -> a = latest
        :: (n == IN_VERZENDING || n == VERZONDEN) && !(latest > 0 && pst[latest] == P_GEPLAND) ->
            if
            :: n == IN_VERZENDING || latest == 0 || RUNNING(pst[latest]) || latest >= 2 ->
                sTask = T_NONE; DONE                        /* found nothing to send */
            :: else ->
                if
                :: expired -> transition(VERLOPEN); completeAll(); DONE
                :: else ->
                    assert(!expired);                                    /* P5 */
                    transition(VERZONDEN); latest = 2; pst[2] = P_GEPLAND; a = 2
                fi
            fi
        :: else -> sTask = T_NONE; DONE                         /* bezorgd or terminal */
        fi;
        requested = preq[a]
    }
    if
    :: requested ->
        /* an earlier claim may have reached NotifyNL: look it up by reference */
        atomic {
            if
            :: mail[a] -> result = 1; goto commit
            :: !mail[a] -> skip
            fi
        }
    :: else
    fi;
    /* endedExpired: no new call after geldig_tot */
    atomic {
        if
        :: expired ->
            if
            :: sTask == T_CLAIMED ->
                if
                :: n == IN_VERZENDING || n == VERZONDEN -> transition(VERLOPEN); completeAll()
                :: else -> sTask = T_NONE
                fi
            :: else
            fi;
            DONE
        :: else
        fi
    }
    /* under the locks: geldig_tot checked once more, the POST recorded */
    atomic {
        if
        :: sTask != T_CLAIMED -> DONE
        :: else
        fi;
#ifndef BROKEN_NO_EXPIRY_RECHECK
        if
        :: expired ->
            if
            :: n == IN_VERZENDING || n == VERZONDEN -> transition(VERLOPEN); completeAll()
            :: else -> sTask = T_NONE
            fi;
            DONE
        :: else
        fi;
#endif
        assert(!expired);                                                /* P5 */
        preq[a] = true
    }
    /* the POST: 201 (NotifyNL made the e-mail), 400, or once an outage: a time-out, e-mail made or not */
    atomic {
        if
        :: mail[a] = true; result = 1
        :: result = 2
        :: !outage -> outage = true; result = 3; maybe = true;
            if :: mail[a] = true :: skip fi
        fi
    }
    if
    :: result == 3 && maybe && expired ->
        /* an attempt that may be at NotifyNL runs to its outcome: only a lookup that misses it ends it */
        atomic { if :: mail[a] -> result = 1 :: else -> maybe = false fi }
    :: else
    fi;
commit:
    atomic {
        if
        :: sTask == T_CLAIMED ->
            if
            :: result == 1 ->
                if
                :: pst[a] == P_GEPLAND ->
                    pst[a] = P_VERZONDEN;
                    if :: n == IN_VERZENDING -> transition(VERZONDEN) :: else fi;
#ifndef BROKEN_NO_RECONCILIATION
                    if :: rTask == 0 -> rTask = a :: else fi
#endif
                :: else
                fi;
                sTask = T_NONE
            :: result == 2 ->
                pst[a] = P_PERMANENT;
                if
                :: n == IN_VERZENDING || n == VERZONDEN -> transition(NIET_BEZORGBAAR); completeAll()
                :: else -> sTask = T_NONE
                fi
            :: result == 3 ->
                if
                :: expired && !maybe ->
                    if
                    :: n == IN_VERZENDING || n == VERZONDEN -> transition(VERLOPEN); completeAll()
                    :: else -> sTask = T_NONE
                    fi
                :: else -> sTask = T_OPEN                                /* postponed */
                fi
            fi
        :: else
        fi
    }
    atomic { DONE }
}

/* a later outcome of attempt a's e-mail may follow a delivery or a temporary failure */
#define LATER_REPORT (rStatus[2] != 0 && rStatus[3] == 0 && rAt[2] < now)
/* attempt 2's later report: a bounce or a temporary failure after its delivery */
#define LATER_REPORT_2 (rStatus[4] == DELIVERED && rStatus[5] == 0 && rAt[4] < now)

/* NotifyNL's reports of the e-mails it made: outcomes, and the callbacks carrying them */
proctype NotifyNl() {
    byte j;
end:
    do
    /* a first outcome of an e-mail (some e-mails never get one) */
    :: atomic {
        now < LATER && ((mail[1] && rStatus[2] == 0) || (mail[2] && rStatus[4] == 0)) ->
        if :: mail[1] && rStatus[2] == 0 -> j = 2 :: mail[2] && rStatus[4] == 0 -> j = 4 fi;
        if :: rStatus[j] = DELIVERED :: rStatus[j] = PERMANENT :: rStatus[j] = TEMPORARY :: rStatus[j] = TECHNICAL fi;
        rAt[j] = now; cb[j] = CB_WAY; j = 0 }
    /* attempt 1's later report: a bounce after a delivery, a late delivery after a temporary failure, a
       second delivery report, or a status the NMC does not know */
    :: atomic {
        now < LATER && LATER_REPORT ->
        if
        :: rStatus[2] == DELIVERED -> if :: rStatus[3] = PERMANENT :: rStatus[3] = TEMPORARY :: rStatus[3] = DELIVERED fi
        :: rStatus[2] == TEMPORARY -> rStatus[3] = DELIVERED
#ifndef LIVENESS
        :: true -> rStatus[3] = UNKNOWN
#endif
        fi;
        rAt[3] = now; cb[3] = CB_WAY }
#ifndef LIVENESS
    :: atomic {
        now < LATER && LATER_REPORT_2 ->
        if :: rStatus[5] = PERMANENT :: rStatus[5] = TEMPORARY fi;
        rAt[5] = now; cb[5] = CB_WAY }
#endif
    /* a callback arrives (ReceiptStore.store: stored once), or is lost */
    :: atomic {
        (cb[2] == CB_WAY || cb[3] == CB_WAY || cb[4] == CB_WAY || cb[5] == CB_WAY) ->
        if
        :: cb[2] == CB_WAY -> j = 2
        :: cb[3] == CB_WAY -> j = 3
        :: cb[4] == CB_WAY -> j = 4
        :: cb[5] == CB_WAY -> j = 5
        fi;
        cb[j] = CB_DONE;
        if
        :: stored[j] == 0 -> stored[j] = 1
        :: true                                                         /* lost */
        fi;
        j = 0 }
    /* a callback that was stored arrives again: ReceiptStore answers DUPLICATE and nothing changes (a step
       that leaves the state as it is: it is here to show that, and costs no states) */
#ifndef LIVENESS
    :: atomic { stored[2] != 0 -> skip }    /* (left out of the liveness run: a step that can repeat forever) */
#endif
    od
}

/* stored receipts of attempt a, in completed_at order: judged and applied (ReceiptProcessor) */
proctype Processor() {
    byte a, j, k, first, rs, number, c, was, fWas, out;
    bool older, basis, within, other, fHad;
    byte d, dOut, dNaar, dReden;
    bool dFrom;
end:
    do
    :: atomic {
        (stored[2] == 1 || stored[3] == 1 || stored[4] == 1 || stored[5] == 1) ->
        if
        :: stored[2] == 1 || stored[3] == 1 -> a = 1
        :: stored[4] == 1 || stored[5] == 1 -> a = 2
        fi;
        /* apply each unprocessed receipt of attempt a, the earliest completed_at first */
        do
        :: true ->
            first = 0;
            if
            :: a == 1 && stored[2] == 1 && (stored[3] != 1 || rAt[2] <= rAt[3]) -> first = 2
            :: a == 1 && stored[3] == 1 && (stored[2] != 1 || rAt[3] < rAt[2]) -> first = 3
            :: a == 2 && stored[4] == 1 && (stored[5] != 1 || rAt[4] <= rAt[5]) -> first = 4
            :: a == 2 && stored[5] == 1 && (stored[4] != 1 || rAt[5] < rAt[4]) -> first = 5
            :: else
            fi;
            if
            :: first == 0 -> break
            :: else
            fi;
            j = first; rs = rStatus[j]; number = a; c = rAt[j];
            if
            :: pst[a] == P_GEPLAND ->
                /* the sender has not committed NotifyNL's 201 yet: act on its behalf */
                pst[a] = P_VERZONDEN;
                if :: n == IN_VERZENDING -> transition(VERZONDEN) :: else fi;
                if :: sTask != T_NONE -> sTask = T_NONE :: else fi;  /* NotificationTasks.complete(verzenden) */
                if :: !TERMINAL(n) && rTask == 0 -> rTask = a :: else fi
            :: else
            fi;
            older = (plast[a] != 0 && c < plast[a]);
            basis = (pproof[a] != 0);
            within = (pproof[a] == 0 || c <= pproof[a] + PERIOD);
            other = (pst[3 - a] == P_BEZORGD);
            was = PROOF; fWas = fDue; fHad = fTask; k = n;
            judge();
#ifdef EXPORT
            printf("RULE\t"); prN(n); printf("\t%d\t", number); prP(pst[a]); printf("\t"); prB(older); printf("\t"); prR(rs);
            printf("\t"); prB(basis); printf("\t"); prB(within); printf("\t"); prB(expired); printf("\t"); prB(other); printf("\t");
            prD(d); printf("\t"); prP(dOut); printf("\t"); prN(dNaar); printf("\t"); prRd(dReden); printf("\t");
            if :: d == D_ENDS || d == D_RESEND -> prB(dFrom) :: else -> printf("-") fi; printf("\n");
#endif
            /* P4, first half: a delivered that is not older makes verzonden or bezorgstatus-onbekend bezorgd */
            assert(!(rs == DELIVERED && !older && (n == VERZONDEN || n == BEZORGSTATUS_ONBEKEND)) || dNaar == BEZORGD);
            /* apply: attempt, transition, finalise task, resend */
            if
            :: dOut != P_NONE ->
                pst[a] = dOut; plast[a] = c;
                if :: rTask == a -> rTask = 0 :: else fi                 /* completeReconciliation */
            :: else
            fi;
            if :: d == D_DELIVERED -> pproof[a] = c :: else fi;          /* the proof: this first delivered */
            if :: dFrom -> pproof[a] = 0 :: else fi;                      /* undone within the period */
            if :: d == D_MOVES -> pproof[a] = 0; pproof[3 - a] = plast[3 - a] :: else fi;
            if
            :: dNaar != NONE ->
                byBasisReceipt = basis;
                transition(dNaar);
                byBasisReceipt = false;
            :: else
            fi;
            if :: dFrom || d == D_MOVES -> fTask = false :: else fi;
            if
            :: d == D_DELIVERED || d == D_MOVES ->
                fTask = true;
#ifdef BROKEN_NO_MARGIN
                fDue = PROOF;
#else
                fDue = PROOF + MARGIN;
#endif
#ifdef BROKEN_DELIVERED_AGAIN_MOVES_PROOF
            :: d == D_AGAIN && basis ->                                   /* the rule before issue 18 */
                pproof[a] = c; plast[a] = c; fTask = true; fDue = c + MARGIN
#endif
            :: else
            fi;
            if :: d == D_RESEND && sTask == T_NONE -> sTask = T_OPEN :: else fi;
            /* issue 18 §4: every permanent failure is reported once per attempt (the address it went to) */
            if
#ifdef BROKEN_REPORT_ON_TRANSITION_ONLY
            :: rs == PERMANENT && dNaar != NONE && !reported[a] -> reported[a] = true
#else
            :: rs == PERMANENT && !reported[a] -> reported[a] = true
#endif
            :: else
            fi;
            /* only a transition changes the notification's tasks (a late receipt on a terminal one re-plans nothing) */
            if :: TERMINAL(n) && dNaar != NONE -> completeAll() :: else fi;
            /* P6: the delivery proof is the first delivery: it and the finalise task's due stay while bezorgd
               stays, unless a failure within the period undid it and the other attempt's delivery holds */
            assert(!(k == BEZORGD && n == BEZORGD) || d == D_MOVES || (PROOF == was && (!fHad || !fTask || fDue == fWas)));
            /* P7: a receipt that is not older and has a known status is recorded on its attempt (status) and
               ends that attempt's reconciliation; only a repeat delivered changes nothing */
            outcomeOf(rs, out);
            assert(older || rs == UNKNOWN || d == D_AGAIN || (pst[a] == out && rTask != a));
            /* P8: every permanent failure is reported (the model's notification is centralised) */
            assert(rs != PERMANENT || reported[a]);
            stored[j] = 2
        od;
        a = 0; j = 0; k = 0; first = 0; rs = 0; number = 0; c = 0; older = false; basis = false; within = false;
        other = false; was = 0; fWas = 0; fHad = false; out = 0;
        d = 0; dOut = 0; dNaar = 0; dReden = 0; dFrom = false }
    od
}

#ifndef BROKEN_NO_RECONCILIATION
/* the reconcile task (Reconciler): asks NotifyNL about the attempt that has no receipt yet */
proctype Reconciler() {
    byte a, j;
end:
    do
    :: atomic {
        rTask != 0 ->
        a = rTask;
        if
        :: !RUNNING(pst[a]) -> rTask = 0
        :: else ->
            /* NotifyNL's answer: the current outcome (stored like a callback), nothing yet, or 404 */
            j = ((a == 1 && rStatus[3] != 0 && rStatus[3] != UNKNOWN) -> 3 :
                 ((a == 2 && rStatus[5] != 0) -> 5 : 2 * a));
            if
            :: rStatus[j] != 0 && rStatus[j] != UNKNOWN && rRounds[a] < 1 ->
                if :: stored[j] == 0 -> stored[j] = 1 :: else fi;
                rRounds[a]++                                             /* pending: asks again later */
            :: rStatus[j] == 0 && rRounds[a] < 1 -> rRounds[a]++         /* still sending */
            :: true ->                                                   /* 404, or the retention passed */
                if :: pst[a] == P_VERZONDEN -> pst[a] = P_ONBEKEND :: else fi;
                if
                :: n == VERZONDEN -> transition(BEZORGSTATUS_ONBEKEND); completeAll()
                :: else -> rTask = 0
                fi
            fi
        fi;
        a = 0; j = 0 }
    od
}
#endif

/* the finaliser: after the MEBV period (and the callback window) bezorgd becomes definitief-bezorgd */
proctype Finaliser() {
end:
    do
    :: atomic {
        fTask && (now >= fDue || now == LATER) &&
        !(stored[2] == 1 || stored[3] == 1 || stored[4] == 1 || stored[5] == 1) ->
        if
        :: n == BEZORGD ->
            /* P3: the period after each delivery it rests on has passed */
            assert((pproof[1] == 0 || now >= pproof[1] + PERIOD) && (pproof[2] == 0 || now >= pproof[2] + PERIOD));
            transition(DEFINITIEF_BEZORGD); completeAll()
        :: else -> fTask = false
        fi }
    od
}

/* the DV's DELETE (Annulering) */
proctype Dv() {
    atomic {
#ifdef BROKEN_CANCEL_ANY
        if :: !TERMINAL(n) -> transition(GEANNULEERD); completeAll() :: else fi
#else
        if :: n == AANGENOMEN -> transition(GEANNULEERD); completeAll() :: else fi   /* else 409 */
#endif
    }
}

/* the control duty: the missing task of a live notification */
proctype ControlDuty() {
end:
    do
    :: atomic { (n == AANGENOMEN || n == IN_VERZENDING) && sTask == T_NONE && rTask == 0 && !fTask -> sTask = T_OPEN }
    :: atomic { n == VERZONDEN && sTask == T_NONE && rTask == 0 && !fTask ->
            if
#ifndef BROKEN_NO_RECONCILIATION
            :: latest > 0 && RUNNING(pst[latest]) -> rTask = latest
            :: latest > 1 && !RUNNING(pst[2]) && RUNNING(pst[1]) -> rTask = 1
#endif
            :: else -> sTask = T_OPEN
            fi }
    :: atomic { n == BEZORGD && sTask == T_NONE && rTask == 0 && !fTask ->
            /* due: the latest delivery's completed_at (of an attempt that is bezorgd) plus the margin */
            fTask = true;
            fDue = PROOF + MARGIN }
    od
}

/* time: geldig_tot passes at any moment; the clock moves on */
proctype Time() {
end:
    do
    :: atomic { !expired -> expired = true }
    :: atomic { now < LATER -> now++ }
    od
}

/* see model 2: lets a stopped run go on, so the weak-fairness search sees a stop short of the goal */
bit stutter;
proctype Stopped() {
end:
    do
    :: timeout -> stutter = 1 - stutter
    od
}

ltl terminates { <> [] TERMINAL(n) }

init {
    atomic {
        run Sender();
        run NotifyNl();
        run Processor();
#ifndef BROKEN_NO_RECONCILIATION
        run Reconciler();
#endif
        run Finaliser();
        run Dv();
        run ControlDuty();
        run Time();
        run Stopped()
    }
}
