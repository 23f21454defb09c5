package nl.overheid.moz.nmc;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import nl.overheid.moz.nmc.api.DvAuthenticator;
import nl.overheid.moz.nmc.testing.TestDatabase;
import org.junit.jupiter.api.Test;

/**
 * The dev tokens the README's quick start and the benchmarks use ({@code scripts/dev-token},
 * {@code scripts/operator-token}) are tokens the NMC takes by its defaults: an access token's {@code typ} and a
 * lifetime within {@code auth.max-token-age}. Once they lived eight hours and every local call was a 401 unseen,
 * since no test used them.
 */
class DevTokensTest {

    @Test
    void theDevScriptsMintTokensTheNmcAccepts() throws Exception {
        for (List<String> command : List.of(
                List.of("scripts/dev-token", "00000001111111111000"), List.of("scripts/operator-token", "beheerder"))) {
            String token = run(command);
            String[] parts = token.split("\\.");
            assertThat(parts).as(command.toString()).hasSize(3);
            ObjectMapper json = new ObjectMapper();
            JsonNode header = json.readTree(Base64.getUrlDecoder().decode(parts[0]));
            JsonNode claims = json.readTree(Base64.getUrlDecoder().decode(parts[1]));
            assertThat(DvAuthenticator.AuthSettings.DEFAULT_TOKEN_TYPES)
                    .as(command + " typ")
                    .contains(header.path("typ").asText());
            long lifetime = claims.path("exp").asLong() - claims.path("iat").asLong();
            assertThat(Duration.ofSeconds(lifetime))
                    .as(command + " lifetime")
                    .isPositive()
                    .isLessThanOrEqualTo(DvAuthenticator.AuthSettings.DEFAULT_MAX_TOKEN_AGE);
        }
    }

    private static String run(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command)
                .directory(TestDatabase.repositoryRoot().toFile())
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(process.waitFor()).as(command + " exit code").isZero();
        return out;
    }
}
