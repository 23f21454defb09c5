package nl.overheid.moz.nmc.privacy;

import io.helidon.config.Config;
import java.util.Base64;
import java.util.Map;
import java.util.TreeMap;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;

/**
 * The KEKs, fetched once at start-up and kept in memory so the platform's key service is not on the
 * request path (design §9). This implementation reads them from configuration ({@code privacy.kek}).
 */
public final class KeyProvider {

    private static final int KEK_BYTES = 32;

    private final int currentVersion;
    private final Map<Integer, SecretKey> keks;

    public KeyProvider(int currentVersion, Map<Integer, byte[]> keks) {
        Map<Integer, SecretKey> keys = new TreeMap<>();
        keks.forEach((version, raw) -> {
            if (raw.length != KEK_BYTES) {
                throw new IllegalArgumentException("KEK version " + version + " must be 32 bytes (AES-256)");
            }
            keys.put(version, new SecretKeySpec(raw, "AES"));
        });
        if (!keys.containsKey(currentVersion)) {
            throw new IllegalArgumentException("no KEK for the current version " + currentVersion);
        }
        this.currentVersion = currentVersion;
        this.keks = keys;
    }

    public static KeyProvider from(Config kek) {
        Map<Integer, byte[]> versions = new TreeMap<>();
        kek.get("versions").asNodeList().orElseThrow(
                () -> new IllegalArgumentException(kek.key() + ".versions is required"))
                .forEach(node -> versions.put(Integer.parseInt(node.name()),
                        Base64.getDecoder().decode(node.asString().get())));
        return new KeyProvider(kek.get("current-version").asInt().orElse(versions.keySet().stream()
                .max(Integer::compare).orElseThrow()), versions);
    }

    public int currentKekVersion() {
        return currentVersion;
    }

    SecretKey kek(int version) {
        SecretKey key = keks.get(version);
        if (key == null) {
            throw new IllegalArgumentException("unknown KEK version " + version);
        }
        return key;
    }
}
