/**
 * Where the lifecycle meets the task engine: which tasks a notification has, how they are planned and
 * completed, and the notification lock they all take before their task row. Neither the engine nor the
 * lifecycle depends on the other; the step packages (acceptance, sending, receipts) use both through here.
 */
package nl.overheid.moz.nmc.planning;
