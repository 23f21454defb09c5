/**
 * The control duty ({@code controle}): the safety net that makes "never silently stall" hold. It finds
 * every live notification without an open or failed task (and every stored receipt without its receipt
 * task) and plans the missing one. It runs as a periodic {@link nl.overheid.moz.nmc.engine.Duty} on every
 * instance; the unique task indexes make that harmless.
 */
package nl.overheid.moz.nmc.control;
