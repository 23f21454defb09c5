/**
 * The composition root: {@link nl.overheid.moz.nmc.Main} reads the configuration and {@link
 * nl.overheid.moz.nmc.Nmc} wires the database, the core (lifecycle, task engine), the steps, the periodic
 * duties and the HTTP edge by hand, top to bottom. Tests start the same assembly. The README's "How it is
 * built" is the map of the packages below.
 */
package nl.overheid.moz.nmc;
