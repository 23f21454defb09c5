/**
 * Step 6, status ({@code status}): the DV's own notifications by id or by dvRef, read from the source of
 * truth within one transaction, so a status is consistent from the 202 on.
 */
package nl.overheid.moz.nmc.status;
