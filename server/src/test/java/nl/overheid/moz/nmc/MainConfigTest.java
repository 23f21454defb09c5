package nl.overheid.moz.nmc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.helidon.config.Config;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The keys can come from files instead of the environment (review of the privileges, L7: an environment is readable
 * through /proc/&lt;pid&gt;/environ by the same user and lands in diagnostic dumps). {@code NMC_SECRETS_DIR} names a
 * directory laid out as Kubernetes mounts a secret: each key a symbolic link into a hidden, timestamped directory
 * reached through {@code ..data}.
 */
class MainConfigTest {

    @Test
    void aMountedSecretsDirectoryGivesEachFileAsTheKeyItIsNamedFor(@TempDir Path dir) throws Exception {
        Path data = Files.createDirectory(dir.resolve("..2026_12_04_15_00_00.000000001"));
        Files.writeString(data.resolve("privacy.kek.versions.1"), "a2VrLXZhbi1kZS10ZXN0LTAxMjM0NTY3ODkwMTI=");
        Files.writeString(data.resolve("db.password"), "geen-echt-wachtwoord");
        Files.writeString(data.resolve("notifynl.services.standaard.api-key"), "sleutel");
        Files.createSymbolicLink(dir.resolve("..data"), data.getFileName());
        for (String key :
                new String[] {"privacy.kek.versions.1", "db.password", "notifynl.services.standaard.api-key"}) {
            Files.createSymbolicLink(dir.resolve(key), Path.of("..data", key));
        }

        Config config = Main.config(Optional.empty(), Optional.of(dir.toString()));

        assertThat(config.get("privacy.kek.versions.1").asString().get())
                .isEqualTo("a2VrLXZhbi1kZS10ZXN0LTAxMjM0NTY3ODkwMTI=");
        assertThat(config.get("privacy.kek.versions").asNodeList().get()).hasSize(1);
        assertThat(config.get("db.password").asString().get()).isEqualTo("geen-echt-wachtwoord");
        assertThat(config.get("notifynl.services.standaard.api-key").asString().get())
                .isEqualTo("sleutel");
        assertThat(config.get("db.schema").asString().get())
                .as("the packaged defaults still apply beneath")
                .isEqualTo("validate");
    }

    @Test
    void aSecretsDirectoryThatIsNotThereRefusesTheConfiguration(@TempDir Path dir) {
        assertThatThrownBy(() -> Main.config(
                                Optional.empty(),
                                Optional.of(dir.resolve("niet-gemount").toString()))
                        .get("db.password")
                        .asString()
                        .get())
                .isInstanceOf(RuntimeException.class);
    }
}
