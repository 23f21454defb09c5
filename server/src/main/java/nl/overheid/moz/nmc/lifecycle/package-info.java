/**
 * The notification lifecycle's core: the status vocabularies ({@link
 * nl.overheid.moz.nmc.lifecycle.NotificatieStatus}, {@link nl.overheid.moz.nmc.lifecycle.PogingStatus},
 * {@link nl.overheid.moz.nmc.lifecycle.Reden}), the allowed (van, naar) pairs, and the one transition
 * function ({@link nl.overheid.moz.nmc.lifecycle.Transitions}) that is the only writer of status, guarded
 * by the database trigger. It knows no task: the engine and the lifecycle meet in {@code planning}.
 */
package nl.overheid.moz.nmc.lifecycle;
