package nl.overheid.moz.nmc.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import nl.overheid.moz.nmc.testing.MutableClock;
import nl.overheid.moz.nmc.testing.TestIam;
import org.junit.jupiter.api.Test;

/**
 * The parse and signature check of an accepted token are remembered, and nothing else: the same token is not parsed
 * or checked again under the same key, but its expiry, audience and key are, and any other bytes are a new check.
 */
class TokenVerifierMemoryTest {

    private static final String OIN = "00000000000000000001";

    private final MutableClock clock = MutableClock.startingNow();
    private final TestIam iam = new TestIam();
    private final TestIam rotated = new TestIam();
    private final JwksSource jwks = new JwksSource(iam.jwksFile().toUri(), Duration.ofMinutes(1), 100, clock);
    private final TokenVerifier verifier = new TokenVerifier(
            jwks,
            TestIam.ISSUER,
            new DvAuthenticator.AuthSettings(
                    iam.jwksFile().toString(),
                    TestIam.ISSUER,
                    TestIam.AUDIENCE,
                    "oin",
                    DvAuthenticator.AuthSettings.DEFAULT_CLOCK_SKEW,
                    Duration.ofMinutes(1),
                    100,
                    DvAuthenticator.AuthSettings.DEFAULT_MAX_TOKEN_AGE,
                    DvAuthenticator.AuthSettings.DEFAULT_TOKEN_TYPES),
            clock);

    @Test
    void theSameTokenIsCheckedOnceAndStillExpires() {
        String token = iam.token(OIN, clock.instant());
        for (int i = 0; i < 3; i++) {
            verifier.verify(token, TestIam.AUDIENCE);
        }
        assertThat(verifier.signatureChecks()).isEqualTo(1);
        assertThat(verifier.parses()).isEqualTo(1);

        assertRefused(token, "another audience");
        clock.advance(Duration.ofHours(1).plusMinutes(2)); // beyond its expiry and the skew
        assertRefused(token, TestIam.AUDIENCE);
    }

    @Test
    void aTokenWithOtherBytesIsCheckedAgainAndATamperedOneRefused() {
        String token = iam.token(OIN, clock.instant());
        verifier.verify(token, TestIam.AUDIENCE);
        // a character inside the signature (the last one carries padding bits too)
        int at = token.length() - 10;
        String tampered = token.substring(0, at) + (token.charAt(at) == 'A' ? 'B' : 'A') + token.substring(at + 1);
        assertRefused(tampered, TestIam.AUDIENCE);
        assertThat(verifier.signatureChecks()).isEqualTo(2);
    }

    @Test
    void aWithdrawnKeyEndsTheMemoryAndARepublishedOneIsCheckedAnew() throws IOException {
        String token = iam.token(OIN, clock.instant());
        verifier.verify(token, TestIam.AUDIENCE);

        Files.writeString(iam.jwksFile(), rotated.jwksJson());
        clock.advance(Duration.ofSeconds(61)); // the key set is refreshed
        assertRefused(token, TestIam.AUDIENCE);

        Files.writeString(iam.jwksFile(), iam.jwksJson());
        clock.advance(Duration.ofSeconds(61));
        verifier.verify(token, TestIam.AUDIENCE);
        assertThat(verifier.signatureChecks())
                .as("a new key object: checked again")
                .isEqualTo(2);
        assertThat(verifier.parses()).as("parsed again for the check").isEqualTo(2);
    }

    private void assertRefused(String token, String audience) {
        assertThatThrownBy(() -> verifier.verify(token, audience))
                .isInstanceOf(ProblemException.class)
                .extracting(e -> ((ProblemException) e).status())
                .isEqualTo(401);
    }
}
