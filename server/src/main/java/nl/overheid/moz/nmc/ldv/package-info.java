/**
 * The Logboek Dataverwerkingen (LDV, design §9): every call that processes or provides personal data is preceded by
 * one record, and happens only after the LDV store acknowledged it; a call that then fails gets an ERROR record. The
 * records are OpenTelemetry spans of a dedicated tracer provider ({@link nl.overheid.moz.nmc.ldv.SpanProcessingLog}),
 * written synchronously (those that end together in one transaction: {@link nl.overheid.moz.nmc.ldv.GroupedExport})
 * as rows of MOZa's LDV wrapper ({@link nl.overheid.moz.nmc.ldv.SpanRow}) into PostgreSQL or
 * ClickHouse ({@link nl.overheid.moz.nmc.ldv.SpanStore}). A record has the call's trace and span ids, the
 * berichttype's processing activity, the data subject pseudonymised under the LDV's own pepper, the party called,
 * and nothing personal in clear.
 */
package nl.overheid.moz.nmc.ldv;
