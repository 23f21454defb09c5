/**
 * Operational signals at {@code /observe/metrics}: counters of what happens in passing and gauges read
 * from the database on each scrape (README, §11).
 */
package nl.overheid.moz.nmc.observe;
