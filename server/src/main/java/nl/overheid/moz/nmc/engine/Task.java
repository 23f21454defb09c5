package nl.overheid.moz.nmc.engine;

import java.time.Instant;
import java.util.UUID;

/**
 * A claimed task. {@code claimEpoch} is the epoch of this claim: every later write on the task carries it
 * and is refused once another claim raised it. {@code dvId} is null for system tasks; {@code notificatie},
 * {@code poging} and {@code ontvangst} are null for tasks that are not about a notification.
 * {@code postponements} counts {@link TaskRepository#postpone postponements} (failures of a party the NMC
 * calls, which cost no attempt), for the backoff. {@code budget} is the send budget the task spends (an
 * opaque key its planner chose; null for kinds without one) and {@code claimedAt} the moment of the claim
 * that took its token, so an unused token goes back to the window it came from ({@link UnusedTokens}).
 * {@code traceParentSpanId} is the span the run continues in the trace {@code traceId} (its notification's
 * acceptance), null when there is none.
 */
public record Task(
        long id,
        TaskKind kind,
        UUID dvId,
        UUID notificatie,
        UUID poging,
        Long receipt,
        Instant due,
        Instant leaseUntil,
        long claimEpoch,
        int failureCount,
        String traceId,
        String traceParentSpanId,
        String payload,
        int postponements,
        String budget,
        Instant claimedAt) {}
