/**
 * The Logboek Dataverwerkingen (LDV, design §9): every call that processes or provides personal data is
 * preceded by one record, and happens only after the logbook acknowledged it. Records are span-like (the
 * same trace and span ids as the call's {@code traceparent}), carry the berichttype's processing activity
 * and a data subject pseudonymised under the LDV's own pepper, and nothing personal in clear.
 */
package nl.overheid.moz.nmc.ldv;
