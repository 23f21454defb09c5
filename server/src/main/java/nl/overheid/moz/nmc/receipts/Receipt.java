package nl.overheid.moz.nmc.receipts;

import java.time.Instant;
import java.util.UUID;

/** A stored NotifyNL receipt: never the recipient's address. */
public record Receipt(long id, UUID poging, UUID notifyId, String status, Instant completedAt) {}
