package nl.overheid.moz.nmc.lifecycle;

import io.helidon.dbclient.DbTransaction;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * The one transition function: the only writer of {@code notificatie.status}.
 *
 * <p>Every transition runs inside the caller's transaction and follows the same steps: lock the
 * notification row ({@link #lock}), check the pair against {@link AllowedTransitions}, raise {@code versie}
 * by one and write the event whose {@code volgnummer} equals the new {@code versie}. The database trigger
 * refuses anything else, so a code path that bypasses this class fails at commit. The statements are
 * {@link NotificatieRepository}'s; the rules are here.
 *
 * <p>Lock order: the notification row is locked before any write on it or on its tasks and attempts.
 */
public final class Transitions {

    /**
     * Whether {@code validUntil} ({@code geldig_tot}; none: never) has passed at {@code now}. Strictly after it: the
     * seed starts no send "na geldig_tot", so at that very moment one may still start.
     */
    public static boolean expired(Instant validUntil, Instant now) {
        return validUntil != null && now.isAfter(validUntil);
    }

    private final NotificatieRepository notificaties;
    private final Clock clock;
    private final Observer observer;

    /**
     * Who is told of every status a notification enters (the metrics' flow per status and DV, wired in the
     * composition root: the lifecycle knows no metric). Called inside the transaction that writes it.
     */
    public interface Observer {
        Observer NONE = (tx, dvId, status) -> {};

        void entered(DbTransaction tx, UUID dvId, NotificatieStatus status);
    }

    public Transitions(NotificatieRepository notificaties, Clock clock) {
        this(notificaties, clock, Observer.NONE);
    }

    public Transitions(NotificatieRepository notificaties, Clock clock, Observer observer) {
        this.notificaties = Objects.requireNonNull(notificaties);
        this.clock = Objects.requireNonNull(clock);
        this.observer = Objects.requireNonNull(observer);
    }

    /** A notification as locked in the current transaction. */
    public record Locked(
            UUID id,
            UUID dvId,
            NotificatieStatus status,
            int version,
            Reden reden,
            Instant validUntil,
            String berichttype,
            String regime,
            String traceId,
            String acceptanceSpanId) {

        /** Whether the DV gave an identifying number (centralised) rather than an e-mail address. */
        public boolean centraal() {
            return "centraal".equals(regime);
        }

        /** Whether {@code geldig_tot} has passed at {@code now}: no attempt may start any more. */
        public boolean expiredAt(Instant now) {
            return expired(validUntil, now);
        }
    }

    /** What acceptance produced: the new notification, or the existing one for a repeated request. */
    public record AcceptResult(Locked notificatie, boolean created) {}

    /**
     * Locks the notification row and returns its current state; empty when the notification does not exist.
     * Concurrency: see {@link NotificatieRepository#lock}.
     */
    public Optional<Locked> lock(DbTransaction tx, UUID notificatieId) {
        return notificaties.lock(tx, notificatieId);
    }

    /** Locks the notification only if it belongs to DV {@code dvId} (a DV's own request: cancel). */
    public Optional<Locked> lockOfDv(DbTransaction tx, UUID notificatieId, UUID dvId) {
        return notificaties.lockOfDv(tx, notificatieId, dvId);
    }

    /**
     * Moves a locked notification to {@code naar} and writes its event; returns the new state.
     *
     * @throws TransitionRefused when (current status, naar) is not an allowed pair
     * @throws IllegalStateException when the row changed since it was locked (a bug: the lock prevents it)
     */
    public Locked apply(DbTransaction tx, Locked current, NotificatieStatus to, Reden reden) {
        if (!AllowedTransitions.allowed(current.status(), to)) {
            throw new TransitionRefused(current.status(), to);
        }
        if (!to.admits(reden)) {
            // the callers' own pairs are constants; the operator's forced one is checked before (OperatorActions)
            throw new IllegalArgumentException("status " + to + " does not go with reden " + reden);
        }
        // Erasure and retention count from the last time the notification became terminal; the DV sees it as
        // definitiefOp, the moment of the event.
        Instant now = clock.instant();
        long updated =
                notificaties.setStatus(tx, current.id(), current.version(), to, reden, to.terminal() ? now : null);
        if (updated != 1) {
            throw new IllegalStateException("notification " + current.id() + " changed under its row lock");
        }
        int volgnummer = current.version() + 1;
        notificaties.insertEvent(tx, now, current.dvId(), current.id(), volgnummer, current.status(), to, reden);
        observer.entered(tx, current.dvId(), to);
        return new Locked(
                current.id(),
                current.dvId(),
                to,
                volgnummer,
                reden,
                current.validUntil(),
                current.berichttype(),
                current.regime(),
                current.traceId(),
                current.acceptanceSpanId());
    }

    /**
     * The first transition, (none) → aangenomen, for notifications of one DV and regime: inserts each
     * notification and its event with volgnummer 1 in one statement. A repeat of an earlier request (same
     * DV, dvRef HMAC and payload HMAC, also within {@code all}) inserts nothing and yields the existing
     * notification. Results are in the order of {@code all}.
     *
     * <p>Concurrency: see {@link NotificatieRepository#insertAll}.
     */
    public List<AcceptResult> acceptAll(DbTransaction tx, List<NewNotificatie> all) {
        if (all.isEmpty()) {
            return List.of();
        }
        NewNotificatie first = all.getFirst();
        if (all.stream()
                .anyMatch(n -> !n.dvId().equals(first.dvId()) || !n.regime().equals(first.regime()))) {
            throw new IllegalArgumentException("one acceptance statement takes notifications of one DV and regime");
        }
        Set<UUID> created = notificaties.insertAll(tx, first.dvId(), first.regime(), clock.instant(), all);
        List<AcceptResult> results = new ArrayList<>(all.size());
        for (NewNotificatie n : all) {
            if (created.contains(n.id())) {
                observer.entered(tx, n.dvId(), NotificatieStatus.AANGENOMEN);
                results.add(new AcceptResult(
                        new Locked(
                                n.id(),
                                n.dvId(),
                                NotificatieStatus.AANGENOMEN,
                                1,
                                null,
                                n.validUntil(),
                                n.berichttype(),
                                n.regime(),
                                n.traceId(),
                                n.acceptanceSpanId()),
                        true));
            } else {
                results.add(new AcceptResult(
                        findAccepted(tx, n.dvId(), List.of(n.dvrefHmac()), List.of(n.payloadHmac()))
                                .orElseThrow(),
                        false));
            }
        }
        return results;
    }

    /** {@link #acceptAll} of one notification. */
    public AcceptResult accept(DbTransaction tx, NewNotificatie n) {
        return acceptAll(tx, List.of(n)).getFirst();
    }

    /** An accepted notification with the idempotency key it was stored under. */
    public record Repeatable(Locked notificatie, byte[] dvrefHmac, byte[] payloadHmac) {}

    /** The notification an identical request created, under any of the given HMACs (one per pepper version). */
    public Optional<Locked> findAccepted(
            DbTransaction tx, UUID dvId, List<byte[]> dvrefHmacs, List<byte[]> payloadHmacs) {
        return findAcceptedAll(tx, dvId, dvrefHmacs, payloadHmacs).stream()
                .findFirst()
                .map(Repeatable::notificatie);
    }

    /** The DV's notifications stored under any pair of the given HMACs. */
    public List<Repeatable> findAcceptedAll(
            DbTransaction tx, UUID dvId, List<byte[]> dvrefHmacs, List<byte[]> payloadHmacs) {
        return notificaties.byIdempotencyKeys(tx, dvId, dvrefHmacs, payloadHmacs);
    }
}
