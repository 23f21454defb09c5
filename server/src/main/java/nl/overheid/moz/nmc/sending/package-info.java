/**
 * Step 2, sending ({@code verzenden}): the send task and NotifyNL. {@link
 * nl.overheid.moz.nmc.sending.SendPipeline} writes only {@code taak} and {@code poging} (the claim takes the
 * send budget) and changes status only through the transition function; {@link
 * nl.overheid.moz.nmc.sending.NotifyNl} classifies every NotifyNL answer so that a failure of the call never
 * costs an attempt. In the centralised regime the send task first asks the Profielservice for the address; every
 * call that processes personal data is preceded by its LDV record (design §9). {@link
 * nl.overheid.moz.nmc.sending.InvalidAddressReporter} reports an address NotifyNL found permanently unreachable.
 */
package nl.overheid.moz.nmc.sending;
