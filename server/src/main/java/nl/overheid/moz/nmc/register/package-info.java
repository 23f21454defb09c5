/**
 * The DV register ({@code dienstverlener}) and the message types ({@code berichttype}): who may send what,
 * with which quota, and how each berichttype is sent (NotifyNL template and service, default validity,
 * retry policy). Onboarding fills it; the local run and the tests seed it from configuration.
 */
package nl.overheid.moz.nmc.register;
