package nl.overheid.moz.nmc.status;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.lifecycle.NotificatieRepository;
import nl.overheid.moz.nmc.lifecycle.Poging;
import nl.overheid.moz.nmc.lifecycle.PogingRepository;
import nl.overheid.moz.nmc.lifecycle.PogingStatus;
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

        /** The delivery proof: the completed_at NotifyNL reported on the attempt that was delivered. */
        public Instant deliveredAt() {
            return pogingen.stream()
                    .filter(p -> p.status() == PogingStatus.BEZORGD)
                    .map(Poging::receiptCompletedAt)
                    .findFirst()
                    .orElse(null);
        }
    }

    public Optional<Snapshot> byId(Dienstverlener dv, UUID id) {
        return database.inTransaction(tx ->
                reads.view(tx, dv.id(), id).map(view -> new Snapshot(view, pogingen.all(tx, id))));
    }

    /** The DV's notifications with this dvRef (its HMAC under every pepper version still in use), oldest first. */
    public List<Snapshot> byDvRef(Dienstverlener dv, String dvRef, int limit) {
        List<byte[]> hmacs = peppers.dvRefUnderEveryVersion(dv.id(), dvRef);
        return database.inTransaction(tx -> reads.byDvRef(tx, dv.id(), hmacs, limit).stream()
                .map(view -> new Snapshot(view, pogingen.all(tx, view.id())))
                .toList());
    }
}
