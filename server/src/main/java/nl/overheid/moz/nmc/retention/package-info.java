/**
 * The privacy lifecycle over time (design §9, §10): a notification's data key is erased a fixed period after
 * its terminal status ({@link nl.overheid.moz.nmc.retention.Erasure}, the {@code wissen} task), its rows are
 * deleted after the delivery-proof retention ({@link nl.overheid.moz.nmc.retention.NotificatieRetention}),
 * data keys are re-wrapped under a new KEK ({@link nl.overheid.moz.nmc.retention.KeyRewrap}), and a pepper
 * version an operator marks compromised is no longer used and its rows are erased early
 * ({@link nl.overheid.moz.nmc.retention.PepperCompromises}). Every step works in small batches and short
 * transactions, so none holds back the feed's watermark, and each resumes where it stopped after a crash.
 */
package nl.overheid.moz.nmc.retention;
