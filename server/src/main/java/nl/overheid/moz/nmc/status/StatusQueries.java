package nl.overheid.moz.nmc.status;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.lifecycle.NotificatieRepository;
import nl.overheid.moz.nmc.lifecycle.NotificatieStatus;
import nl.overheid.moz.nmc.lifecycle.Poging;
import nl.overheid.moz.nmc.lifecycle.PogingRepository;
import nl.overheid.moz.nmc.privacy.Peppers;
import nl.overheid.moz.nmc.register.Dienstverlener;

/**
 * Step 6, status: a DV reads its own notifications, with version and attempts, by id or by dvRef. Always
 * within the caller's DV (another DV's notification does not exist), and consistent from the 202 on: the
 * status is read from the source of truth, not from a projection.
 */
public final class StatusQueries {

    private final Database database;
    private final NotificatieRepository reads;
    private final PogingRepository pogingen;
    private final Peppers peppers;

    public StatusQueries(Database database, NotificatieRepository reads, PogingRepository pogingen, Peppers peppers) {
        this.database = database;
        this.reads = reads;
        this.pogingen = pogingen;
        this.peppers = peppers;
    }

    /** A notification as its DV sees it: status view and attempts. */
    public record Snapshot(NotificatieRepository.View view, List<Poging> pogingen) {

        /**
         * The delivery proof while the notification is (definitief-)bezorgd: the completed_at of the first delivered
         * on the attempt its bezorgd rests on. A later delivered, on that attempt or the other, never moves it.
         */
        public Instant deliveredAt() {
            return proofAttempt().map(Poging::deliveryProofAt).orElse(null);
        }

        /** Whether this attempt's first delivered is the notification's delivery proof (at most one is). */
        public boolean isDeliveryProof(Poging poging) {
            return proofAttempt().map(p -> p.id().equals(poging.id())).orElse(false);
        }

        private Optional<Poging> proofAttempt() {
            if (view.status() != NotificatieStatus.BEZORGD && view.status() != NotificatieStatus.DEFINITIEF_BEZORGD) {
                return Optional.empty();
            }
            return pogingen.stream().filter(p -> p.deliveryProofAt() != null).findFirst();
        }
    }

    public Optional<Snapshot> byId(Dienstverlener dv, UUID id) {
        return database.inTransaction(tx ->
                reads.view(tx, dv.id(), id).map(view -> new Snapshot(view, pogingen.all(tx, id))));
    }

    /**
     * The DV's notifications with this dvRef (its HMAC under every pepper version still in use), the newest
     * {@code limit} of them, newest first: the ones a DV that reuses a dvRef looks for.
     */
    public List<Snapshot> byDvRef(Dienstverlener dv, String dvRef, int limit) {
        List<byte[]> hmacs = peppers.dvRefUnderEveryVersion(dv.id(), dvRef);
        return database.inTransaction(tx -> reads.byDvRef(tx, dv.id(), hmacs, limit).stream()
                .map(view -> new Snapshot(view, pogingen.all(tx, view.id())))
                .toList());
    }
}
