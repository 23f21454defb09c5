/**
 * The task engine: side-effect work as rows of {@code taak} with a {@code due} time, claimed in one
 * statement with {@code FOR UPDATE SKIP LOCKED}, leased, and guarded by a claim epoch that every later
 * write checks. It also holds the send budget (a token bucket per NotifyNL service per minute) and the
 * runner of periodic duties.
 *
 * <p>The engine has no notification logic and never reads or locks a notification: a kind whose tasks act on
 * another row (a notification) says so
 * through its {@link nl.overheid.moz.nmc.engine.TaskHandler#subjectLock() subject lock}, which every
 * transaction on a claimed task takes before the task row. Tasks without a subject (per DV, or system
 * tasks without a DV) are claimed like any other.
 *
 * <p>A task row moves like this: planned ({@code open}, {@code due}) by whoever decides the work is needed
 * (acceptance, a receipt, a send commit, the control duty); claimed by a {@link
 * nl.overheid.moz.nmc.engine.TaskWorker} (lease set, epoch + 1); then, by its handler, completed (deleted),
 * postponed (new {@code due}, no failure counted: a party the NMC calls failed), or failed (NMC-internal:
 * {@code pogingenteller} + 1 and a backoff; at the kind's maximum the handler decides, by default parking
 * it as {@code mislukt} for an operator). A lease that expires makes the task claimable again.
 */
package nl.overheid.moz.nmc.engine;
