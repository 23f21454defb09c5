package nl.overheid.moz.nmc.privacy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.Key;
import java.security.SecureRandom;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/**
 * The envelope: data keys wrapped with RFC 3394 key wrap (no nonce, so no limit on wraps per KEK), fields sealed with
 * AES-GCM bound to their notification; keys wrapped the earlier way (AES-GCM) still open and re-wrap to key wrap.
 */
class EnvelopeTest {

    private static final SecureRandom RANDOM = new SecureRandom();
    private final SecretKey kek1 = key();
    private final SecretKey kek2 = key();
    private final Keks keks = new Keks();
    private final Envelope envelope = new Envelope(keks);

    @Test
    void aDataKeyIsWrappedWithRfc3394KeyWrapAndItsFieldsOpenAgain() throws Exception {
        UUID id = UUID.randomUUID();
        Envelope.Sealed sealed = envelope.seal(id, Map.of("ontvanger", "a@example.nl", "personalisatie", "{}"));

        assertThat(sealed.wrappedKey()).hasSize(Envelope.WRAPPED_KEY_BYTES);
        // Independent of the envelope's own code: the JDK's RFC 3394 unwrap with the KEK gives a 256-bit AES key.
        Cipher unwrap = Cipher.getInstance("AESWrap");
        unwrap.init(Cipher.UNWRAP_MODE, kek1);
        Key dataKey = unwrap.unwrap(sealed.wrappedKey(), "AES", Cipher.SECRET_KEY);
        assertThat(dataKey.getEncoded()).hasSize(32);
        assertThat(envelope.open(id, sealed.wrappedKey(), 1, sealed.ciphertexts()))
                .containsEntry("ontvanger", "a@example.nl")
                .containsEntry("personalisatie", "{}");
    }

    @Test
    void wrappingTheSameKindOfKeyTwiceNeverRepeatsAWrappedKey() {
        UUID id = UUID.randomUUID();
        byte[] first = envelope.seal(id, Map.of()).wrappedKey();
        byte[] second = envelope.seal(id, Map.of()).wrappedKey();
        assertThat(first).isNotEqualTo(second);
    }

    @Test
    void aTamperedWrappedKeyOrAFieldMovedToAnotherNotificationDoesNotOpen() {
        UUID id = UUID.randomUUID();
        Envelope.Sealed sealed = envelope.seal(id, Map.of("ontvanger", "a@example.nl"));
        byte[] tampered = sealed.wrappedKey().clone();
        tampered[5] ^= 1;
        assertThatThrownBy(() -> envelope.open(id, tampered, 1, sealed.ciphertexts()))
                .isInstanceOf(Envelope.DecryptionFailed.class);
        assertThatThrownBy(() -> envelope.open(UUID.randomUUID(), sealed.wrappedKey(), 1, sealed.ciphertexts()))
                .as("the whole row copied under another id")
                .isInstanceOf(Envelope.DecryptionFailed.class);
        assertThatThrownBy(() -> envelope.open(id, new byte[33], 1, sealed.ciphertexts()))
                .isInstanceOf(Envelope.DecryptionFailed.class);
        assertThatThrownBy(() -> envelope.open(id, null, 1, sealed.ciphertexts()))
                .isInstanceOf(Envelope.Erased.class);
    }

    @Test
    void aKeyWrappedTheEarlierWayWithGcmStillOpensAndRewrapsToKeyWrapUnderTheCurrentKek() throws Exception {
        UUID id = UUID.randomUUID();
        byte[] raw = new byte[32];
        RANDOM.nextBytes(raw);
        byte[] legacy = gcm(kek1, raw, (id + "/dek").getBytes(StandardCharsets.UTF_8));
        assertThat(legacy).hasSize(60);
        byte[] field = gcm(
                new SecretKeySpec(raw, "AES"),
                "b@example.nl".getBytes(StandardCharsets.UTF_8),
                (id + "/ontvanger").getBytes(StandardCharsets.UTF_8));

        assertThat(envelope.open(id, legacy, 1, Map.of("ontvanger", field))).containsEntry("ontvanger", "b@example.nl");

        keks.current = 2;
        Envelope.Rewrapped rewrapped = envelope.rewrap(id, legacy, 1);
        assertThat(rewrapped.kekVersion()).isEqualTo(2);
        assertThat(rewrapped.wrappedKey()).hasSize(Envelope.WRAPPED_KEY_BYTES);
        assertThat(envelope.open(id, rewrapped.wrappedKey(), 2, Map.of("ontvanger", field)))
                .containsEntry("ontvanger", "b@example.nl");
        assertThatThrownBy(() -> envelope.open(id, rewrapped.wrappedKey(), 1, Map.of("ontvanger", field)))
                .as("not under the old KEK")
                .isInstanceOf(Envelope.DecryptionFailed.class);
    }

    @Test
    void aFieldSealedLaterOpensWithTheOthers() {
        UUID id = UUID.randomUUID();
        Envelope.Sealed sealed = envelope.seal(id, Map.of("ontvanger", "a@example.nl"));
        byte[] later = envelope.sealField(id, sealed.wrappedKey(), 1, "contactgegeven", "42");
        assertThat(envelope.open(id, sealed.wrappedKey(), 1, Map.of("contactgegeven", later)))
                .containsEntry("contactgegeven", "42");
    }

    private static byte[] gcm(SecretKey key, byte[] plaintext, byte[] aad) throws Exception {
        byte[] iv = new byte[12];
        RANDOM.nextBytes(iv);
        Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
        cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(128, iv));
        cipher.updateAAD(aad);
        byte[] sealed = cipher.doFinal(plaintext);
        return ByteBuffer.allocate(12 + sealed.length).put(iv).put(sealed).array();
    }

    private static SecretKey key() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return new SecretKeySpec(bytes, "AES");
    }

    private final class Keks implements KekProvider {
        int current = 1;

        @Override
        public int currentKekVersion() {
            return current;
        }

        @Override
        public Set<Integer> kekVersions() {
            return Set.of(1, 2);
        }

        @Override
        public SecretKey kek(int version) {
            return version == 1 ? kek1 : kek2;
        }
    }
}
