package nl.overheid.moz.nmc.privacy;

import java.util.Set;
import javax.crypto.SecretKey;

/**
 * Where the key-encryption keys (KEKs) come from (design §9). They are loaded once at start-up and held in
 * memory only, so the key service is never on the request path: a notification is sealed and opened with
 * what {@link #kek} returns without a call.
 *
 * <p>{@link ConfiguredKeks} reads them from configuration or the environment (local runs, tests). The
 * integration point for the platform's key service is another implementation of this interface that, in its
 * constructor, fetches each configured version from that service (for example a KMS decrypting a wrapped KEK
 * or an HSM export) and keeps the result in memory; {@code privacy.kek.provider} selects it.
 */
public interface KekProvider {

    /** The version new data keys are wrapped under. */
    int currentKekVersion();

    /** Every version the NMC can unwrap with. */
    Set<Integer> kekVersions();

    /** The KEK of a version; refuses an unknown one. */
    SecretKey kek(int version);
}
