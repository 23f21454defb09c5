/**
 * Upkeep of the database that no request triggers ({@code onderhoud}): today the event-log partitions kept
 * ahead of the transaction ids. Retention, erasure and re-wrapping (design §10) are not built yet.
 */
package nl.overheid.moz.nmc.maintenance;
