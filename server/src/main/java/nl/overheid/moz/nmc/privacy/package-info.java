/**
 * Privacy measures of design §9: HMAC with a pepper per purpose and version ({@link
 * nl.overheid.moz.nmc.privacy.Peppers}: the dvRef and the payload hash of idempotency), and envelope
 * encryption of the recipient and personalisation under a per-notification data key wrapped by a KEK
 * ({@link nl.overheid.moz.nmc.privacy.Envelope}, {@link nl.overheid.moz.nmc.privacy.KekProvider}). Nothing
 * personal is stored in clear; erasing the wrapped key erases the data.
 */
package nl.overheid.moz.nmc.privacy;
