package nl.overheid.moz.nmc.acceptance;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The canonical payload's exact bytes: its HMAC is the idempotency key stored on every notification, so a request
 * sent again after an upgrade must hash as it did before. The texts below are what the NMC hashed when it built the
 * text first and encoded it then (UTF-8 of {@code JsonNode.toString}); the bytes written at once must equal them.
 */
class CanonicalPayloadTest {

    private static byte[] canonicalPayload(Acceptance.Request request) throws Exception {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        Acceptance.writeCanonicalPayload(request, out);
        return out.toByteArray();
    }

    private static String text(Acceptance.Request request) throws Exception {
        return new String(canonicalPayload(request), StandardCharsets.UTF_8);
    }

    @Test
    void decentralisedWithSortedPersonalisationEscapesAndTextBeyondAscii() throws Exception {
        Acceptance.Request request = new Acceptance.Request(
                "decentraal",
                "ref-1",
                "bt-1",
                null,
                "a@example.nl",
                // given unsorted: the text sorts it
                Map.of("zaak", "Zaak \"Z\" \\ 1", "naam", "Jürgen 😀 – ĳ", "leeg", ""),
                Instant.parse("2026-12-03T10:15:30.123Z"),
                "batch-is-not-part-of-it",
                null);

        byte[] bytes = canonicalPayload(request);

        String expected =
                "{\"purpose\":\"payload\",\"regie\":\"decentraal\",\"dvRef\":\"ref-1\",\"berichttype\":\"bt-1\","
                        + "\"ontvanger\":\"a@example.nl\",\"personalisation\":{\"leeg\":\"\",\"naam\":\"Jürgen 😀 – ĳ\","
                        + "\"zaak\":\"Zaak \\\"Z\\\" \\\\ 1\"},\"geldigTot\":\"2026-12-03T10:15:30.123Z\"}";
        assertThat(text(request)).isEqualTo(expected);
        assertThat(new ObjectMapper().readTree(expected).toString())
                .as("the text as JsonNode.toString writes it, as the NMC hashed it before")
                .isEqualTo(expected);
        assertThat(bytes)
                .as("UTF-8, as the text was encoded before")
                .isEqualTo(expected.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void centralisedHashesTheIdentificationWithItsTypeAndAMissingValidityAsNull() throws Exception {
        Acceptance.Request request =
                new Acceptance.Request("centraal", "ref-2", "bt-1", "KVK", "12345678", Map.of(), null, null, null);

        assertThat(text(request))
                .isEqualTo(
                        "{\"purpose\":\"payload\",\"regie\":\"centraal\",\"dvRef\":\"ref-2\",\"berichttype\":\"bt-1\","
                                + "\"ontvanger\":\"KVK:12345678\",\"personalisation\":{},\"geldigTot\":null}");
    }
}
