/**
 * W3C Trace Context for a notification: its acceptance starts (or continues the DV's) trace; every
 * outgoing call that processes the notification's personal data is a child span of the acceptance, with
 * its {@code traceparent} on the call and the same ids on its LDV record.
 */
package nl.overheid.moz.nmc.trace;
