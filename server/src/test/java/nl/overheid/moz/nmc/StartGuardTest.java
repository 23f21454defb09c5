package nl.overheid.moz.nmc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.helidon.config.Config;
import io.helidon.config.ConfigSources;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import nl.overheid.moz.nmc.testing.TestDatabase;
import org.junit.jupiter.api.Test;

/**
 * The start guard's list of public dev values is the dev files' own: every secret of {@code scripts/dev/nmc-dev.yaml}
 * and every token {@code scripts/run} gives the simulators is refused outside dev, so a dev value added there
 * without being added here fails this test. The refusals through a real start are in {@link StartupRefusalTest}.
 */
class StartGuardTest {

    private static final Path ROOT = TestDatabase.repositoryRoot();
    private static final Pattern SECRET_KEY = Pattern.compile("pepper|kek|cursor-key|token|api-key");

    @Test
    void everySecretOfTheDevConfigurationIsKnownAsADevValue() {
        Config dev = Config.just(ConfigSources.file(ROOT.resolve("scripts/dev/nmc-dev.yaml")));
        List<Config> secrets = dev.traverse()
                .filter(Config::isLeaf)
                .filter(node -> SECRET_KEY.matcher(node.key().toString()).find())
                .filter(node -> !node.key().name().equals("current-version"))
                .toList();
        assertThat(secrets).as("the dev file's secrets").hasSizeGreaterThanOrEqualTo(9);
        assertThat(secrets)
                .allSatisfy(node -> assertThat(StartGuard.DEV_VALUE_DIGESTS)
                        .as(node.key().toString())
                        .contains(StartGuard.sha256(node.asString().get().trim())));
        assertThat(dev.get("dev").asBoolean().orElse(false))
                .as("the local run is dev")
                .isTrue();
    }

    @Test
    void everyTokenTheLocalRunGivesTheSimulatorsIsKnownAsADevValue() throws IOException {
        Matcher tokens = Pattern.compile("(?m)^[A-Z_]*(?:TOKEN|API_KEY)[A-Z_0-9]*=([^$\\s]\\S*)")
                .matcher(Files.readString(ROOT.resolve("scripts/run")));
        int found = 0;
        while (tokens.find()) {
            found++;
            assertThat(StartGuard.DEV_VALUE_DIGESTS).as(tokens.group()).contains(StartGuard.sha256(tokens.group(1)));
        }
        assertThat(found).isGreaterThanOrEqualTo(3);
    }

    @Test
    void theLocalRunsAndTheBenchmarksConfigurationsPassTheGuard() {
        // scripts/bench runs no test of its own: a configuration the guard refuses broke every benchmark unseen once
        for (String file : List.of(
                "scripts/dev/nmc-dev.yaml", "conformance-tests/bench/src/main/resources/bench/nmc-bench.yaml")) {
            assertThatCode(() -> StartGuard.check(Config.just(ConfigSources.file(ROOT.resolve(file)))))
                    .as(file)
                    .doesNotThrowAnyException();
        }
    }

    @Test
    void aDevValueAnywhereOutsideDevIsRefusedByItsKeyWithoutTheValue() {
        String devKek = "ZGV2LW9ubHkta2VrLW5vdC1mb3ItcHJvZHVjdGlvbiE=";
        Config config = yaml("some:\n  other:\n    place: \"" + devKek + "\"\n");
        assertThatThrownBy(() -> StartGuard.check(config))
                .hasMessageContaining("some.other.place holds a public dev value")
                .hasMessageNotContaining(devKek);
        assertThatCode(() -> StartGuard.check(yaml("dev: true\nsome:\n  place: \"" + devKek + "\"\n")))
                .doesNotThrowAnyException();
    }

    @Test
    void aFileJwksIsAcceptedOutsideDevAndHttpOnlyInDev() {
        assertThatCode(() -> StartGuard.check(yaml("auth:\n  jwks-uri: file:/etc/nmc/jwks.json\n")))
                .doesNotThrowAnyException();
        assertThatCode(() -> StartGuard.check(yaml("auth:\n  jwks-uri: https://iam.example.nl/jwks\n")))
                .doesNotThrowAnyException();
        assertThatThrownBy(() -> StartGuard.check(yaml("auth:\n  operator:\n    jwks-uri: http://iam/jwks\n")))
                .hasMessageContaining("auth.operator.jwks-uri must be https");
        assertThatCode(() -> StartGuard.check(yaml("dev: true\nauth:\n  jwks-uri: http://127.0.0.1/jwks\n")))
                .doesNotThrowAnyException();
    }

    @Test
    void thirtyTwoRandomBytesPassInHexOrBase64AndLessDoesNot() {
        SecureRandom random = new SecureRandom();
        for (int i = 0; i < 200; i++) {
            byte[] bytes = new byte[32];
            random.nextBytes(bytes);
            assertThat(StartGuard.estimatedBits(
                            Base64.getUrlEncoder().withoutPadding().encodeToString(bytes)))
                    .isGreaterThanOrEqualTo(StartGuard.MIN_TOKEN_BITS);
            assertThat(StartGuard.estimatedBits(Base64.getEncoder().encodeToString(bytes)))
                    .isGreaterThanOrEqualTo(StartGuard.MIN_TOKEN_BITS);
            assertThat(StartGuard.estimatedBits(HexFormat.of().formatHex(bytes)))
                    .isGreaterThanOrEqualTo(StartGuard.MIN_TOKEN_BITS);
            byte[] fewer = new byte[24];
            random.nextBytes(fewer);
            assertThat(StartGuard.estimatedBits(
                            Base64.getUrlEncoder().withoutPadding().encodeToString(fewer)))
                    .isLessThan(StartGuard.MIN_TOKEN_BITS);
        }
        assertThat(StartGuard.estimatedBits("a".repeat(200))).isZero();
    }

    private static Config yaml(String text) {
        return Config.just(ConfigSources.create(text, io.helidon.common.media.type.MediaTypes.APPLICATION_X_YAML));
    }

    /**
     * Outside dev, an NMC that only validates its schema refuses to run as a login that may act as the schema's owner
     * (the migration step's login, here the test cluster's owner) or as a superuser: the runtime role's limits would
     * not hold. As the runtime login it starts; in dev, or when it migrates the schema itself, the check is off.
     */
    @Test
    void outsideDevTheNmcRefusesToRunAsTheSchemasOwner() {
        TestDatabase db = TestDatabase.get();
        Config production = Config.just(ConfigSources.create(java.util.Map.of("dev", "false")));
        Config dev = Config.just(ConfigSources.create(java.util.Map.of("dev", "true")));
        nl.overheid.moz.nmc.db.Database owner = db.open();
        nl.overheid.moz.nmc.db.Database runtime = nl.overheid.moz.nmc.db.Database.open(
                nl.overheid.moz.nmc.db.DatabaseSettings.of(db.url(), db.appUser(), db.appPassword())
                        .withPoolSize(2)
                        .withSchemaMode("validate"));
        try {
            assertThatThrownBy(() -> StartGuard.checkLogin(production, owner, "validate"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("db.user may act as the owner of the NMC's schema");
            StartGuard.checkLogin(production, runtime, "validate");
            StartGuard.checkLogin(dev, owner, "validate");
            StartGuard.checkLogin(production, owner, "migrate");
        } finally {
            owner.close();
            runtime.close();
        }
    }
}
