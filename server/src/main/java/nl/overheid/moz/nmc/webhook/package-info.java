/**
 * Step 5, push side (design §8): the optional webhook of a DV. One {@code terugkoppelen} task per DV reads
 * the DV's events from the webhook's own delivery position under the feed's watermark and POSTs them in
 * batches, signed with the NMC's key ({@link nl.overheid.moz.nmc.webhook.SigningKeys}, published as JWKS).
 * A 2xx moves the delivery position, never the acknowledgement; failures in a row pause the webhook with an
 * increasing wait, or until the DV resumes it ({@link nl.overheid.moz.nmc.webhook.Webhooks}).
 */
package nl.overheid.moz.nmc.webhook;
