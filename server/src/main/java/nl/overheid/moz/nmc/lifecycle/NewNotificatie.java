package nl.overheid.moz.nmc.lifecycle;

import java.time.Instant;
import java.util.UUID;

/**
 * A notification as it is stored at acceptance: only pseudonymous and encrypted data.
 *
 * @param dvrefHmac HMAC over (dvId, dvRef) under pepper {@code pepperVersie}
 * @param payloadHmac HMAC over the canonical request, for idempotency
 * @param ontvangerVersleuteld the e-mail address or identifying number, encrypted with the data key
 * @param personalisatieVersleuteld the personalisation, encrypted with the data key
 * @param datasleutelGewrapt the per-notification data key, wrapped by KEK {@code kekVersie}
 */
public record NewNotificatie(UUID id, UUID dvId, byte[] dvrefHmac, int pepperVersie, byte[] payloadHmac,
                             String batchId, String berichttype, String regie, Instant geldigTot,
                             byte[] ontvangerVersleuteld, byte[] personalisatieVersleuteld,
                             byte[] datasleutelGewrapt, int kekVersie, String traceId) {
}
