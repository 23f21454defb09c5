package nl.overheid.moz.nmc.privacy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Envelope encryption of contact data and personalisation (design §9): a fresh AES-256 data key per
 * notification encrypts the fields with AES-GCM; the KEK wraps the data key with AES key wrap (RFC 3394,
 * {@code AES/KW/NoPadding}). Erasing the wrapped key erases the data; rotating the KEK re-wraps keys without
 * touching the data.
 *
 * <p>Why key wrap and not GCM for the data key: key wrap is deterministic and needs no nonce, so a KEK can wrap
 * any number of keys (GCM with random 96-bit nonces must stay well below 2^32 encryptions per key, which would
 * need a count per KEK). Keys wrapped by earlier versions with AES-GCM (60 bytes: nonce, key, tag) still open;
 * the re-wrap duty moves them to key wrap (40 bytes), so the two are told apart by their length.
 *
 * <p>The notification id is the associated data of every field's ciphertext, so a ciphertext copied to another
 * row does not decrypt (with its own wrapped key or another's). Raw data-key bytes are cleared as soon as they
 * have served; the JDK's key objects copy them and cannot be cleared ({@code SecretKeySpec} is not
 * destroyable), so they are kept only for the call.
 *
 * <p>Data keys never leave this class: a notification is sealed ({@link #seal}), opened ({@link #open}, the
 * only way to decrypt, used by the send task and the invalid-address report only; {@code ArchitectureTest}
 * keeps it so) or its key re-wrapped under another KEK ({@link #rewrap}).
 */
public final class Envelope {

    /** A 256-bit data key wrapped with RFC 3394: the key and an 8-byte integrity block. */
    public static final int WRAPPED_KEY_BYTES = 40;

    /** A data key wrapped by an earlier version with AES-GCM: nonce, key and tag. */
    private static final int GCM_WRAPPED_KEY_BYTES = 60;

    private static final int DATA_KEY_BYTES = 32;
    private static final int IV_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final KekProvider keys;

    public Envelope(KekProvider keys) {
        this.keys = keys;
    }

    /** A sealed notification: its wrapped data key, the KEK version, and each field's ciphertext. */
    public record Sealed(byte[] wrappedKey, int kekVersion, Map<String, byte[]> ciphertexts) {}

    /** A data key re-wrapped under another KEK; the ciphertexts stay as they are. */
    public record Rewrapped(byte[] wrappedKey, int kekVersion) {}

    /** Seals the fields of a new notification under a fresh data key, wrapped by the current KEK. */
    public Sealed seal(UUID notificatieId, Map<String, String> fields) {
        byte[] raw = new byte[DATA_KEY_BYTES];
        RANDOM.nextBytes(raw);
        try {
            SecretKey key = new SecretKeySpec(raw, "AES");
            int version = keys.currentKekVersion();
            byte[] wrapped = wrap(keys.kek(version), raw);
            Map<String, byte[]> ciphertexts = new LinkedHashMap<>();
            fields.forEach((field, plaintext) -> ciphertexts.put(
                    field, seal(key, plaintext.getBytes(StandardCharsets.UTF_8), aad(notificatieId, field))));
            return new Sealed(wrapped, version, Map.copyOf(ciphertexts));
        } finally {
            Arrays.fill(raw, (byte) 0);
        }
    }

    /**
     * Whether this instance holds KEK {@code version}: during a rolling deploy that adds a KEK, an instance still on
     * the old configuration meets rows the new ones sealed under it.
     */
    public boolean holdsKek(int version) {
        return keys.kekVersions().contains(version);
    }

    /**
     * Decrypts fields of a notification: the one way to read personal data back. {@code wrapped} null means
     * the notification was erased.
     *
     * @throws Erased           when the data key was erased
     * @throws DecryptionFailed when a ciphertext or the wrapped key does not open
     */
    public Map<String, String> open(UUID notificatieId, byte[] wrapped, int kekVersion, Map<String, byte[]> fields) {
        if (wrapped == null) {
            throw new Erased();
        }
        byte[] raw = unwrap(keys.kek(kekVersion), notificatieId, wrapped);
        try {
            SecretKey key = new SecretKeySpec(raw, "AES");
            Map<String, String> plaintexts = new LinkedHashMap<>();
            fields.forEach((field, ciphertext) -> {
                byte[] plaintext = open(key, ciphertext, aad(notificatieId, field));
                plaintexts.put(field, new String(plaintext, StandardCharsets.UTF_8));
                Arrays.fill(plaintext, (byte) 0);
            });
            return plaintexts;
        } finally {
            Arrays.fill(raw, (byte) 0);
        }
    }

    /**
     * Seals one more field of an existing notification under its own data key (an attempt's detail learned at
     * send time); like the others it is unreadable once the wrapped key is erased.
     *
     * @throws Erased when the data key was erased
     */
    public byte[] sealField(UUID notificatieId, byte[] wrapped, int kekVersion, String field, String plaintext) {
        if (wrapped == null) {
            throw new Erased();
        }
        byte[] raw = unwrap(keys.kek(kekVersion), notificatieId, wrapped);
        try {
            return seal(
                    new SecretKeySpec(raw, "AES"),
                    plaintext.getBytes(StandardCharsets.UTF_8),
                    aad(notificatieId, field));
        } finally {
            Arrays.fill(raw, (byte) 0);
        }
    }

    /**
     * Re-wraps a data key under the current KEK with key wrap, without touching the data it encrypts (KEK rotation,
     * and the move of GCM-wrapped keys to key wrap).
     */
    public Rewrapped rewrap(UUID notificatieId, byte[] wrapped, int kekVersion) {
        byte[] raw = unwrap(keys.kek(kekVersion), notificatieId, wrapped);
        try {
            int current = keys.currentKekVersion();
            return new Rewrapped(wrap(keys.kek(current), raw), current);
        } finally {
            Arrays.fill(raw, (byte) 0);
        }
    }

    public int currentKekVersion() {
        return keys.currentKekVersion();
    }

    public java.util.Set<Integer> kekVersions() {
        return keys.kekVersions();
    }

    /** RFC 3394 key wrap of raw data-key bytes. */
    private static byte[] wrap(SecretKey kek, byte[] raw) {
        try {
            Cipher cipher = Cipher.getInstance("AES/KW/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, kek);
            return cipher.doFinal(raw);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("key wrap failed", e);
        }
    }

    /** The raw data key of a wrapped one, of either form (the caller clears it). */
    private static byte[] unwrap(SecretKey kek, UUID notificatieId, byte[] wrapped) {
        if (wrapped.length == GCM_WRAPPED_KEY_BYTES) {
            return open(kek, wrapped, aad(notificatieId, "dek"));
        }
        if (wrapped.length != WRAPPED_KEY_BYTES) {
            throw new DecryptionFailed(new IllegalArgumentException("a wrapped key of " + wrapped.length + " bytes"));
        }
        try {
            Cipher cipher = Cipher.getInstance("AES/KW/NoPadding");
            cipher.init(Cipher.DECRYPT_MODE, kek);
            return cipher.doFinal(wrapped);
        } catch (GeneralSecurityException e) {
            throw new DecryptionFailed(e);
        }
    }

    private static byte[] aad(UUID notificatieId, String field) {
        return (notificatieId + "/" + field).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] seal(SecretKey key, byte[] plaintext, byte[] aad) {
        try {
            byte[] iv = new byte[IV_BYTES];
            RANDOM.nextBytes(iv);
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, iv));
            cipher.updateAAD(aad);
            byte[] sealed = cipher.doFinal(plaintext);
            return ByteBuffer.allocate(IV_BYTES + sealed.length)
                    .put(iv)
                    .put(sealed)
                    .array();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("encryption failed", e);
        }
    }

    private static byte[] open(SecretKey key, byte[] sealed, byte[] aad) {
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, sealed, 0, IV_BYTES));
            cipher.updateAAD(aad);
            return cipher.doFinal(sealed, IV_BYTES, sealed.length - IV_BYTES);
        } catch (GeneralSecurityException e) {
            throw new DecryptionFailed(e);
        }
    }

    /** The notification's data key was erased: nothing of it can be read any more. */
    public static final class Erased extends RuntimeException {
        Erased() {
            super("the data key was erased", null, false, false);
        }
    }

    /** A ciphertext that does not open with the key at hand (tampered, wrong row, or erased key). */
    public static final class DecryptionFailed extends RuntimeException {
        DecryptionFailed(Throwable cause) {
            super("decryption failed", cause);
        }
    }
}
