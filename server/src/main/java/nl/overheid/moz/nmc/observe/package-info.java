/**
 * Operational signals at {@code /observe/metrics}: counters of what happens in passing and gauges read
 * from the database on each scrape (design §11, server/OPERATIONS.md).
 */
package nl.overheid.moz.nmc.observe;
