/**
 * The database: one PostgreSQL, reached through Helidon's DbClient over a HikariCP pool.
 *
 * <p>{@link nl.overheid.moz.nmc.db.Database#inTransaction} is the unit of work (one transaction, rerun on a
 * serialization failure or deadlock); {@link nl.overheid.moz.nmc.db.Statement} is a named SQL statement that
 * a repository keeps next to its table's code; {@link nl.overheid.moz.nmc.db.DbTypes} is where Java values
 * become SQL values and back; {@link nl.overheid.moz.nmc.db.GroupCommit} writes the work of callers that come while
 * an earlier write is in flight together, in one transaction (the acceptance's single requests, the processing
 * log's records). This package knows no table.
 */
package nl.overheid.moz.nmc.db;
