/**
 * Operations (design §11): what an operator does through the operator API — reopen parked tasks, force a
 * transition through the transition function, keep the DV register, resume a webhook, raise the cluster epoch,
 * re-wrap under the current KEK, mark a pepper compromised — each recorded in the audit ({@code beheeractie}).
 * Speaks in domain terms ({@link nl.overheid.moz.nmc.refusal.Refusal}); the HTTP mapping is {@code api/}'s.
 */
package nl.overheid.moz.nmc.operator;
