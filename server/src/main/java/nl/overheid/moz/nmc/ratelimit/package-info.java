/**
 * The per-DV rate limits of the DV API's calls, counted per second in the database so that all instances together
 * allow what one allows ({@link nl.overheid.moz.nmc.ratelimit.DvCalls}).
 */
package nl.overheid.moz.nmc.ratelimit;
