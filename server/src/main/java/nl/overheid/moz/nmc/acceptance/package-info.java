/**
 * Step 1, acceptance ({@code aanname}), and cancelling ({@code annulering}): the synchronous front of the
 * lifecycle. One transaction stores the notification (dvRef only as an HMAC, recipient and personalisation
 * only encrypted), its first task and event 1, so the notification is durable before the 202. Refusals are
 * domain exceptions ({@link nl.overheid.moz.nmc.refusal.Refusal}); the API layer maps them to problems.
 */
package nl.overheid.moz.nmc.acceptance;
