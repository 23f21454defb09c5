/**
 * Upkeep of the database that no request triggers ({@code onderhoud}): the event-log partitions kept ahead of
 * the transaction ids (with rows that fell into the default partition moved into a range partition), and
 * event-log retention, which drops a partition once its events are past the delivery-proof retention and no
 * feed position needs them. Every step that changes partitions is a short transaction that gives up rather
 * than wait for its lock. Erasure, row retention and re-wrapping (design §10) live in {@code retention}.
 */
package nl.overheid.moz.nmc.maintenance;
