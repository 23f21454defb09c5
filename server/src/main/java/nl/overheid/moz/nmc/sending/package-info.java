/**
 * Step 2, sending ({@code verzenden}): the send task and NotifyNL. {@link
 * nl.overheid.moz.nmc.sending.SendPipeline} writes only {@code taak} and {@code poging} (the claim takes the
 * send budget) and changes status only through the transition function; {@link
 * nl.overheid.moz.nmc.sending.NotifyNl} classifies every NotifyNL answer so that a failure of the call never
 * costs an attempt. The Profielservice and the LDV (centralised regime, design §9) are not built yet.
 */
package nl.overheid.moz.nmc.sending;
