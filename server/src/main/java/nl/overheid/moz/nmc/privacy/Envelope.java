package nl.overheid.moz.nmc.privacy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import javax.crypto.Cipher;
import javax.crypto.KeyGenerator;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Envelope encryption of contact data and personalisation (design §9): a fresh AES-256 data key per
 * notification encrypts the fields with AES-GCM; the KEK wraps the data key. Erasing the wrapped key
 * erases the data; rotating the KEK re-wraps keys without touching the data.
 *
 * <p>The notification id is the associated data of every ciphertext, so a ciphertext copied to another
 * row does not decrypt.
 *
 * <p>Data keys never leave this class: a notification is sealed ({@link #seal}), opened ({@link #open}, the
 * only way to decrypt, used by the send task and the invalid-address report only; {@code ArchitectureTest}
 * keeps it so) or its key re-wrapped under another KEK ({@link #rewrap}).
 */
public final class Envelope {

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
        try {
            KeyGenerator generator = KeyGenerator.getInstance("AES");
            generator.init(256, RANDOM);
            SecretKey key = generator.generateKey();
            int version = keys.currentKekVersion();
            byte[] wrapped = seal(keys.kek(version), key.getEncoded(), aad(notificatieId, "dek"));
            Map<String, byte[]> ciphertexts = new LinkedHashMap<>();
            fields.forEach((field, plaintext) -> ciphertexts.put(
                    field, seal(key, plaintext.getBytes(StandardCharsets.UTF_8), aad(notificatieId, field))));
            return new Sealed(wrapped, version, Map.copyOf(ciphertexts));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot create a data key", e);
        }
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
        SecretKey key = new SecretKeySpec(open(keys.kek(kekVersion), wrapped, aad(notificatieId, "dek")), "AES");
        Map<String, String> plaintexts = new LinkedHashMap<>();
        fields.forEach((field, ciphertext) -> plaintexts.put(
                field, new String(open(key, ciphertext, aad(notificatieId, field)), StandardCharsets.UTF_8)));
        return plaintexts;
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
        byte[] raw = open(keys.kek(kekVersion), wrapped, aad(notificatieId, "dek"));
        try {
            return seal(
                    new SecretKeySpec(raw, "AES"),
                    plaintext.getBytes(StandardCharsets.UTF_8),
                    aad(notificatieId, field));
        } finally {
            java.util.Arrays.fill(raw, (byte) 0);
        }
    }

    /** Re-wraps a data key under the current KEK without touching the data it encrypts (KEK rotation). */
    public Rewrapped rewrap(UUID notificatieId, byte[] wrapped, int kekVersion) {
        byte[] raw = open(keys.kek(kekVersion), wrapped, aad(notificatieId, "dek"));
        try {
            int current = keys.currentKekVersion();
            return new Rewrapped(seal(keys.kek(current), raw, aad(notificatieId, "dek")), current);
        } finally {
            java.util.Arrays.fill(raw, (byte) 0);
        }
    }

    public int currentKekVersion() {
        return keys.currentKekVersion();
    }

    public java.util.Set<Integer> kekVersions() {
        return keys.kekVersions();
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
