package nl.overheid.moz.nmc.privacy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/** HMACs under each pepper version, against HmacSHA256 keyed anew for each: the keyed Macs shared are not disturbed. */
class PeppersTest {

    private static final byte[] ONE = pepper(1);
    private static final byte[] TWO = pepper(2);
    private static final byte[] THREE = pepper(3);

    private static byte[] pepper(int seed) {
        byte[] bytes = new byte[32];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) (seed * 31 + i * 7);
        }
        return bytes;
    }

    /** The reference: a Mac keyed for this one HMAC. */
    private static byte[] reference(byte[] pepper, String text) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(pepper, "HmacSHA256"));
        return mac.doFinal(text.getBytes(StandardCharsets.UTF_8));
    }

    private final Peppers peppers = new Peppers(2, Map.of(3, THREE, 1, ONE, 2, TWO));

    @Test
    void eachVersionHashesWithItsOwnPepperAndAgainTheSame() throws Exception {
        assertThat(peppers.hmac(1, "tekst")).isEqualTo(reference(ONE, "tekst"));
        assertThat(peppers.hmac(2, "tekst")).isEqualTo(reference(TWO, "tekst"));
        assertThat(peppers.hmac(2, "tekst"))
                .as("the shared keyed Mac is unchanged")
                .isEqualTo(reference(TWO, "tekst"));
        assertThat(peppers.hmac(3, "é\u20ac")).isEqualTo(reference(THREE, "é\u20ac"));
        assertThatThrownBy(() -> peppers.hmac(4, "tekst"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown pepper version 4");
    }

    @Test
    void underEveryVersionIsByVersionAscendingAndEqualsEachVersionsOwn() throws Exception {
        UUID dv = UUID.fromString("00000000-0000-0000-0000-000000000001");
        String text = "x".repeat(4_000);

        Map<Integer, byte[]> byVersion = peppers.hmacByVersion(text);
        Map<Integer, byte[]> dvRefs = peppers.dvRefByVersion(dv, "ref-1");

        assertThat(byVersion).containsOnlyKeys(1, 2, 3);
        assertThat(List.copyOf(byVersion.keySet())).containsExactly(1, 2, 3);
        assertThat(byVersion.get(1)).isEqualTo(reference(ONE, text));
        assertThat(byVersion.get(3)).isEqualTo(reference(THREE, text));
        assertThat(List.copyOf(dvRefs.keySet())).containsExactly(1, 2, 3);
        assertThat(dvRefs.get(2)).isEqualTo(reference(TWO, dv + "\u0000ref-1"));
        assertThat(peppers.hmacByVersion(out -> {
                    // written in pieces, as a generator flushes its buffer: the same HMACs as over the whole text
                    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
                    out.write(bytes, 0, 1_000);
                    out.write(bytes[1_000]);
                    out.write(bytes, 1_001, bytes.length - 1_001);
                }))
                .allSatisfy((version, hmac) -> assertThat(hmac).isEqualTo(byVersion.get(version)))
                .containsOnlyKeys(1, 2, 3);
        assertThat(peppers.dvRefUnderEveryVersion(dv, "ref-1"))
                .containsExactly(dvRefs.get(1), dvRefs.get(2), dvRefs.get(3));
    }

    /** Many threads at once, each text its own: every HMAC equals the reference (clones of one keyed Mac). */
    @Test
    void concurrentHmacsEachEqualTheReference() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            List<Future<Integer>> wrong = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int thread = t;
                wrong.add(threads.submit(() -> {
                    int mismatches = 0;
                    for (int i = 0; i < 2_000; i++) {
                        String text = "t" + thread + "-" + i + "-".repeat(i % 97);
                        int version = 1 + i % 3;
                        byte[] pepper = version == 1 ? ONE : version == 2 ? TWO : THREE;
                        if (!java.util.Arrays.equals(peppers.hmac(version, text), reference(pepper, text))) {
                            mismatches++;
                        }
                    }
                    return mismatches;
                }));
            }
            for (Future<Integer> future : wrong) {
                assertThat(future.get()).isZero();
            }
        } finally {
            threads.shutdownNow();
        }
    }

    /**
     * Seed 003: "een pepper per doel"; the dvRef's HMAC and the LDV pseudonym use different peppers. Found by
     * reading: nothing checked it, and CONFIGURATION has the LDV pepper copied from the Profielservice's. Refused
     * (in dev too: the rule is read with the rings) for the current versions, naming keys and never the value; an
     * older version may still share one, so a deployment that did can start and rotate away from it.
     */
    @Test
    void theCurrentPeppersOfTwoPurposesMayNotBeTheSame() {
        byte[] shared = "same-pepper-for-two-purposes-0123456789".getBytes(StandardCharsets.UTF_8);
        byte[] other = "a-dvref-pepper-of-its-own-0123456789abc".getBytes(StandardCharsets.UTF_8);
        Map<String, Peppers> sharing = new java.util.LinkedHashMap<>();
        sharing.put("privacy.pepper", new Peppers(2, Map.of(1, other, 2, shared)));
        sharing.put("privacy.ldv-pepper", new Peppers(1, Map.of(1, shared.clone())));
        assertThatThrownBy(() -> Peppers.requireOnePerPurpose(sharing))
                .hasMessageContaining("privacy.ldv-pepper.versions.1 holds the current value of privacy.pepper")
                .hasMessageNotContaining(new String(shared, StandardCharsets.UTF_8))
                .hasMessageNotContaining(java.util.Base64.getEncoder().encodeToString(shared));
        Map<String, Peppers> rotated = new java.util.LinkedHashMap<>();
        rotated.put("privacy.pepper", new Peppers(2, Map.of(1, shared, 2, other)));
        rotated.put("privacy.ldv-pepper", new Peppers(1, Map.of(1, shared.clone())));
        org.assertj.core.api.Assertions.assertThatCode(() -> Peppers.requireOnePerPurpose(rotated))
                .as("an older version that shared a value, rotated away from")
                .doesNotThrowAnyException();
    }
}
