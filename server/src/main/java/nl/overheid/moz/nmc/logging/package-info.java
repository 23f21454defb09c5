/**
 * Log lines an operator can follow (server/OPERATIONS.md): the context of the work a thread does (trace, span,
 * notification, task kind, DV) and the JSON or plain-text line each record becomes. Below every other package:
 * anyone may set the context, it depends on no package of the NMC.
 */
package nl.overheid.moz.nmc.logging;
