package nl.overheid.moz.nmc.privacy;

import io.helidon.config.Config;
import java.util.Base64;
import java.util.Map;
import java.util.TreeMap;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;

/**
 * The KEKs from configuration ({@code privacy.kek.current-version}, {@code privacy.kek.versions.<n>}, base64 of
 * 32 bytes), read once at start-up and held in memory: the provider for local runs, tests, and an
 * environment that injects its keys as secrets.
 */
public final class ConfiguredKeks implements KekProvider {

    private static final int KEK_BYTES = 32;

    private final int currentVersion;
    private final Map<Integer, SecretKey> keks;

    public ConfiguredKeks(int currentVersion, Map<Integer, byte[]> keks) {
        Map<Integer, SecretKey> keys = new TreeMap<>();
        keks.forEach((version, raw) -> {
            if (raw.length != KEK_BYTES) {
                throw new IllegalArgumentException("KEK version " + version + " must be 32 bytes (AES-256)");
            }
            keys.put(version, new SecretKeySpec(raw, "AES"));
        });
        if (!keys.containsKey(currentVersion)) {
            throw new IllegalArgumentException("privacy.kek: no KEK for the current version " + currentVersion);
        }
        this.currentVersion = currentVersion;
        this.keks = java.util.Collections.unmodifiableMap(keys);
    }

    public static ConfiguredKeks from(Config kek) {
        Map<Integer, byte[]> versions = new TreeMap<>();
        kek.get("versions")
                .asNodeList()
                .orElseThrow(() -> new IllegalArgumentException(kek.key() + ".versions is required"))
                .forEach(node -> versions.put(
                        Integer.parseInt(node.name()),
                        Base64.getDecoder().decode(node.asString().get())));
        return new ConfiguredKeks(
                kek.get("current-version")
                        .asInt()
                        .orElse(versions.keySet().stream().max(Integer::compare).orElseThrow()),
                versions);
    }

    @Override
    public int currentKekVersion() {
        return currentVersion;
    }

    @Override
    public java.util.Set<Integer> kekVersions() {
        return keks.keySet(); // read-only: asked on every send (Envelope.holdsKek)
    }

    @Override
    public SecretKey kek(int version) {
        SecretKey key = keks.get(version);
        if (key == null) {
            throw new IllegalArgumentException("unknown KEK version " + version);
        }
        return key;
    }
}
