package nl.overheid.moz.nmc.simulator;

import java.util.Objects;

/**
 * The scope of a contactgegeven or voorkeur at the Profielservice ({@code ScopeResponse}): the dienstverlener's
 * name there and, optionally, one of its diensten. Without a dienst the scope is dienstverlener-wide: the real
 * service sends {@code "dienstNaam": null} for it, and a {@code dienstNaam} filter keeps it for every dienst.
 *
 * @param dienstverlenerNaam the DV's name at the Profielservice (what the NMC's register calls the DV's
 *                           {@code profielDienstverlenerNaam}), matched case-insensitively by the service
 * @param dienstNaam         the dienst's name, or null for a dienstverlener-wide scope
 */
public record Scope(String dienstverlenerNaam, String dienstNaam) {

    public Scope {
        Objects.requireNonNull(dienstverlenerNaam, "dienstverlenerNaam");
        if (!Party.meaningful(dienstverlenerNaam) || (dienstNaam != null && !Party.meaningful(dienstNaam))) {
            // the real service's ScopeRequest pattern: not blank, no CR/LF
            throw new IllegalArgumentException("a scope's names must be non-blank without line breaks");
        }
    }

    /** A scope of one dienst of a dienstverlener. */
    public static Scope of(String dienstverlenerNaam, String dienstNaam) {
        return new Scope(dienstverlenerNaam, Objects.requireNonNull(dienstNaam, "dienstNaam"));
    }

    /** A dienstverlener-wide scope: no dienst, so it stays in the answer whatever {@code dienstNaam} asks. */
    public static Scope of(String dienstverlenerNaam) {
        return new Scope(dienstverlenerNaam, null);
    }

    /** Whether this scope is dienstverlener-wide. */
    public boolean dienstverlenerWide() {
        return dienstNaam == null;
    }
}
