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
 * @param traceId the W3C trace the acceptance belongs to
 * @param aannameSpanId the acceptance's own span: the parent of every later call about the notification
 * @param ldvBetrokkene the data subject as LDV records name it (pseudonymised) and its type
 */
public record NewNotificatie(
        UUID id,
        UUID dvId,
        byte[] dvrefHmac,
        int pepperVersion,
        byte[] payloadHmac,
        int payloadPepperVersion,
        String batchId,
        String berichttype,
        String regime,
        Instant validUntil,
        byte[] recipientEncrypted,
        byte[] personalisationEncrypted,
        byte[] wrappedDataKey,
        int kekVersion,
        String traceId,
        String acceptanceSpanId,
        String ldvDataSubject,
        String ldvDataSubjectType,
        Integer ldvPepperVersion) {}
