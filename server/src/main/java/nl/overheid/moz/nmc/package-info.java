/**
 * The composition root: {@link nl.overheid.moz.nmc.Main} reads the configuration and {@link
 * nl.overheid.moz.nmc.Nmc} wires the database, the core (lifecycle, task engine), the keys, the steps, the
 * periodic duties and the HTTP edge by hand, top to bottom, through the factories {@code Core}, {@code Keys},
 * {@code Steps}, {@code Duties} and {@code HttpEdge}. Tests start the same assembly. server/ARCHITECTURE.md is
 * the map of the packages below.
 */
package nl.overheid.moz.nmc;
