package nl.overheid.moz.nmc.privacy;

import io.helidon.config.Config;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HMAC-SHA256 with a pepper per purpose and version (design §9). New rows use the current version; a
 * search by dvRef tests every version still present on rows.
 */
public final class Peppers {

    private static final String ALGORITHM = "HmacSHA256";
    private static final int MIN_PEPPER_BYTES = 32;

    private final int currentVersion;
    private final Map<Integer, byte[]> peppers;
    /** A Mac keyed with each version's pepper, never used itself: cloned for each HMAC ({@link #keyed(int)}). */
    private final Map<Integer, Mac> keyed;
    /** Versions an operator marked compromised (from the database, refreshed by a duty): never for new rows. */
    private volatile java.util.Set<Integer> compromised = java.util.Set.of();

    public Peppers(int currentVersion, Map<Integer, byte[]> peppers) {
        peppers.forEach((version, pepper) -> {
            if (pepper.length < MIN_PEPPER_BYTES) {
                throw new IllegalArgumentException("pepper version " + version + " is shorter than 32 bytes");
            }
        });
        if (!peppers.containsKey(currentVersion)) {
            throw new IllegalArgumentException("no pepper for the current version " + currentVersion);
        }
        this.currentVersion = currentVersion;
        this.peppers = new TreeMap<>(peppers);
        Map<Integer, Mac> macs = new TreeMap<>();
        this.peppers.forEach((version, pepper) -> macs.put(version, newMac(pepper)));
        this.keyed = java.util.Collections.unmodifiableMap(macs);
    }

    /** Reads {@code current-version} and {@code versions.<n>} (base64) from a pepper subtree. */
    public static Peppers from(Config config) {
        Map<Integer, byte[]> versions = new TreeMap<>();
        config.get("versions")
                .asNodeList()
                .orElseThrow(() -> new IllegalArgumentException(config.key() + ".versions is required"))
                .forEach(node -> versions.put(
                        Integer.parseInt(node.name()),
                        Base64.getDecoder().decode(node.asString().get())));
        try {
            return new Peppers(
                    config.get("current-version")
                            .asInt()
                            .orElse(versions.keySet().stream()
                                    .max(Integer::compare)
                                    .orElseThrow()),
                    versions);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(config.key() + ": " + e.getMessage(), e);
        }
    }

    /**
     * Seed 003: "een pepper per doel"; the dvRef's HMAC and the LDV pseudonym use different peppers. Refuses rings
     * (by their configuration key, in order) whose current peppers are the same bytes: whoever holds the LDV's (the
     * Profielservice does) could compute the dvRef HMACs, and a compromise marked for one would leave the other in use.
     * The current versions only: an older one must stay configured while rows carry it, so a deployment that shared
     * one can still start and rotate away from it. Names keys, never a value.
     */
    public static void requireOnePerPurpose(Map<String, Peppers> byKey) {
        java.util.List<String> refusals = new java.util.ArrayList<>();
        java.util.List<Map.Entry<String, Peppers>> rings = java.util.List.copyOf(byKey.entrySet());
        for (int i = 0; i < rings.size(); i++) {
            for (int j = 0; j < i; j++) {
                Peppers ring = rings.get(i).getValue();
                Peppers earlier = rings.get(j).getValue();
                if (java.security.MessageDigest.isEqual(
                        ring.peppers.get(ring.currentVersion), earlier.peppers.get(earlier.currentVersion))) {
                    refusals.add(rings.get(i).getKey() + ".versions." + ring.currentVersion
                            + " holds the current value of " + rings.get(j).getKey() + ": one pepper per purpose");
                }
            }
        }
        if (!refusals.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", refusals));
        }
    }

    /**
     * The version new rows use: the configured one, or — when that one is compromised — the highest configured
     * version that is not.
     *
     * @throws IllegalStateException when every configured version is compromised
     */
    public int currentVersion() {
        java.util.Set<Integer> marked = compromised;
        if (!marked.contains(currentVersion)) {
            return currentVersion;
        }
        return peppers.keySet().stream()
                .filter(version -> !marked.contains(version))
                .max(Integer::compare)
                .orElseThrow(() -> new IllegalStateException("every pepper version is compromised"));
    }

    /**
     * Whether a version other than {@code version} is configured here and not among {@code marked} (the marks as the
     * database holds them, read under the lock of the mark: this instance's own view may be a duty interval old).
     */
    public boolean hasUsableVersionBesides(int version, java.util.Set<Integer> marked) {
        return peppers.keySet().stream().anyMatch(other -> other != version && !marked.contains(other));
    }

    /** The compromised versions, as the database holds them now. */
    public void compromised(java.util.Set<Integer> versions) {
        this.compromised = java.util.Set.copyOf(versions);
    }

    /** How many versions are configured (more than one during a rotation). */
    public int versionCount() {
        return peppers.size();
    }

    /** The dvRef's HMAC under every pepper version still in use (search tests them all, design §9). */
    public java.util.List<byte[]> dvRefUnderEveryVersion(UUID dvId, String dvRef) {
        return java.util.List.copyOf(dvRefByVersion(dvId, dvRef).values());
    }

    /**
     * The dvRef's HMAC under every pepper version, by version in ascending order; bound to the DV, so that equal
     * references of two DVs differ.
     */
    public Map<Integer, byte[]> dvRefByVersion(UUID dvId, String dvRef) {
        return hmacByVersion(dvId + "\u0000" + dvRef);
    }

    /** HMAC over a canonical text under every pepper version, by version in ascending order. */
    public Map<Integer, byte[]> hmacByVersion(String canonical) {
        byte[] text = canonical.getBytes(StandardCharsets.UTF_8);
        return hmacByVersion(out -> out.write(text));
    }

    /** A canonical text that writes itself, as UTF-8, into a stream. */
    @FunctionalInterface
    public interface CanonicalText {
        void writeTo(java.io.OutputStream out) throws java.io.IOException;
    }

    /**
     * {@link #hmacByVersion(String)} over a text written straight into the HMACs, every version's at once: a bulk
     * item's canonical payload (some 4 KB) is then never held as a text or an array.
     */
    public Map<Integer, byte[]> hmacByVersion(CanonicalText text) {
        Map<Integer, Mac> macs = new java.util.LinkedHashMap<>();
        for (int version : keyed.keySet()) {
            macs.put(version, keyed(version));
        }
        try {
            text.writeTo(new java.io.OutputStream() {
                @Override
                public void write(int b) {
                    macs.values().forEach(mac -> mac.update((byte) b));
                }

                @Override
                public void write(byte[] bytes, int offset, int length) {
                    macs.values().forEach(mac -> mac.update(bytes, offset, length));
                }
            });
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        Map<Integer, byte[]> byVersion = new java.util.LinkedHashMap<>();
        macs.forEach((version, mac) -> byVersion.put(version, mac.doFinal()));
        return byVersion;
    }

    /** HMAC over any canonical text under the given pepper version. */
    public byte[] hmac(int version, String canonical) {
        return keyed(version).doFinal(canonical.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * A Mac keyed with the version's pepper, cloned from one keyed at start: {@code Mac.getInstance} and
     * {@code init} per HMAC looked the provider up, checked its signature and hashed the key again each time, a
     * third of the HMACs' CPU in a bulk call (JFR, benchmark {@code flood}). The prototype is only read, never
     * updated, so concurrent clones are safe.
     */
    private Mac keyed(int version) {
        Mac prototype = keyed.get(version);
        if (prototype == null) {
            throw new IllegalArgumentException("unknown pepper version " + version);
        }
        try {
            return (Mac) prototype.clone();
        } catch (CloneNotSupportedException e) {
            return newMac(peppers.get(version)); // a provider whose HMAC cannot be cloned: keyed anew
        }
    }

    private static Mac newMac(byte[] pepper) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(pepper, ALGORITHM));
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is unavailable", e);
        }
    }
}
