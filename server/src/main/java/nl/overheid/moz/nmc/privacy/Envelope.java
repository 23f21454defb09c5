package nl.overheid.moz.nmc.privacy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
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
 */
public final class Envelope {

    private static final int IV_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final KeyProvider keys;

    public Envelope(KeyProvider keys) {
        this.keys = keys;
    }

    /** A data key for one notification, with its wrapped form. Not to be kept beyond one unit of work. */
    public record DataKey(SecretKey key, byte[] wrapped, int kekVersion) {
    }

    /** Creates a fresh data key wrapped by the current KEK. */
    public DataKey newDataKey(UUID notificatieId) {
        try {
            KeyGenerator generator = KeyGenerator.getInstance("AES");
            generator.init(256, RANDOM);
            SecretKey key = generator.generateKey();
            int version = keys.currentKekVersion();
            byte[] wrapped = seal(keys.kek(version), key.getEncoded(), aad(notificatieId, "dek"));
            return new DataKey(key, wrapped, version);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot create a data key", e);
        }
    }

    /** Unwraps a stored data key. */
    public SecretKey unwrap(UUID notificatieId, byte[] wrapped, int kekVersion) {
        byte[] raw = open(keys.kek(kekVersion), wrapped, aad(notificatieId, "dek"));
        return new SecretKeySpec(raw, "AES");
    }

    public byte[] encrypt(SecretKey dataKey, UUID notificatieId, String field, String plaintext) {
        return seal(dataKey, plaintext.getBytes(StandardCharsets.UTF_8), aad(notificatieId, field));
    }

    public String decrypt(SecretKey dataKey, UUID notificatieId, String field, byte[] ciphertext) {
        return new String(open(dataKey, ciphertext, aad(notificatieId, field)), StandardCharsets.UTF_8);
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
            return ByteBuffer.allocate(IV_BYTES + sealed.length).put(iv).put(sealed).array();
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

    /** A ciphertext that does not open with the key at hand (tampered, wrong row, or erased key). */
    public static final class DecryptionFailed extends RuntimeException {
        DecryptionFailed(Throwable cause) {
            super("decryption failed", cause);
        }
    }
}
