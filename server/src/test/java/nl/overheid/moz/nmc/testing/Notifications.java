package nl.overheid.moz.nmc.testing;

import java.util.UUID;
import nl.overheid.moz.nmc.lifecycle.NewNotificatie;

/** Test data: a notification as acceptance stores it, for tests below the API. */
public final class Notifications {

    private Notifications() {}

    /** A decentralised notification of berichttype {@code test-bericht} with unique HMACs, ready to accept. */
    public static NewNotificatie aNotification(UUID dvId) {
        UUID id = UUID.randomUUID();
        return withHmacs(
                aNotificationWithId(id, dvId),
                id.toString().getBytes(),
                id.toString().getBytes());
    }

    /** The same, under a given id. */
    public static NewNotificatie aNotificationWithId(UUID id, UUID dvId) {
        return new NewNotificatie(
                id,
                dvId,
                id.toString().getBytes(),
                1,
                id.toString().getBytes(),
                1,
                null,
                "test-bericht",
                "decentraal",
                null,
                new byte[] {1},
                new byte[] {2},
                new byte[] {3},
                1,
                "0af7651916cd43dd8448eb211c80319c",
                "b7ad6b7169203331",
                "a".repeat(43) + "=",
                "EMAIL",
                1);
    }

    /** The notification with the idempotency key of another (same DV, dvRef HMAC and payload HMAC). */
    public static NewNotificatie withHmacs(NewNotificatie n, byte[] dvrefHmac, byte[] payloadHmac) {
        return new NewNotificatie(
                n.id(),
                n.dvId(),
                dvrefHmac,
                n.pepperVersion(),
                payloadHmac,
                n.payloadPepperVersion(),
                n.batchId(),
                n.berichttype(),
                n.regime(),
                n.validUntil(),
                n.recipientEncrypted(),
                n.personalisationEncrypted(),
                n.wrappedDataKey(),
                n.kekVersion(),
                n.traceId(),
                n.acceptanceSpanId(),
                n.ldvDataSubject(),
                n.ldvDataSubjectType(),
                n.ldvPepperVersion());
    }
}
