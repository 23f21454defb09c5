/**
 * Step 5, feedback ({@code terugkoppeling}), pull side: the DV's change feed over the event log and its
 * acknowledgements. The feed reads in commit order {@code (transactie_id, id)} under the visibility
 * watermark {@code pg_snapshot_xmin(pg_current_snapshot())}, so a late-committing transaction's events are
 * never skipped; the cursor (cluster epoch, xid8, event id, issue time) is opaque and tamper-evident.
 * Events are CloudEvents built with the SDK ({@link nl.overheid.moz.nmc.feed.StatusEvents}). The push side, the
 * webhook, is {@code webhook}: it reads the same log from a delivery position of its own.
 */
package nl.overheid.moz.nmc.feed;
