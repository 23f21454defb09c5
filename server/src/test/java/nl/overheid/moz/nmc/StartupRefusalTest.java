package nl.overheid.moz.nmc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.helidon.config.Config;
import java.util.function.UnaryOperator;
import nl.overheid.moz.nmc.logging.StdoutLogHandler;
import nl.overheid.moz.nmc.testing.MutableClock;
import nl.overheid.moz.nmc.testing.TestDatabase;
import nl.overheid.moz.nmc.testing.TestIam;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The NMC refuses to start on a configuration it cannot run with, and says why in one line naming the setting
 * ({@link Main#refusal}): a missing NotifyNL key, KEK or pepper, a value out of range, a schema that does not
 * validate, an unknown log format. Nothing is listening after a refusal.
 */
class StartupRefusalTest {

    private static final TestDatabase DB = TestDatabase.get();
    private static final TestIam IAM = new TestIam();

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "no NotifyNL key          | notifynl:\\n  api-key: ''                                  | | notifynl.api-key",
                "a NotifyNL key of another form | notifynl:\\n  api-key: geheim                        | | notifynl.api-key",
                "no KEK at all            | {}                                   | '  kek:\\n'>'  kek-weg:\\n'        | kek",
                "no KEK for the current version | privacy:\\n  kek:\\n    current-version: 7           | | privacy.kek: no KEK for the current version 7",
                "no ldv pepper            | {}                         | '  ldv-pepper:\\n'>'  ldv-pepper-weg:\\n'  | ldv-pepper",
                "a short pepper           | privacy:\\n  pepper:\\n    versions:\\n      '1': c2hvcnQ=   | | privacy.pepper: pepper version 1 is shorter than 32 bytes",
                "one pepper for two purposes | privacy:\\n  ldv-pepper:\\n    versions:\\n      '1': dGVzdC1wZXBwZXItMDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODk= | | privacy.ldv-pepper.versions.1 holds the current value of privacy.pepper",
                "reconcile share above 1  | engine:\\n  reconcile-share: 1.5                          | | engine.reconcile-share",
                "the removed report-max-postponements | profielservice:\\n  report-max-postponements: 3 | | profielservice.report-max-postponements is no longer read",
                "a report backoff above a day | profielservice:\\n  report-backoff-max: P2D | | profielservice.report-backoff-max must be positive and at most a day",
                "a service of one a minute | notifynl:\\n  services:\\n    standaard:\\n      per-minute: 1 | | notifynl.services.standaard.per-minute must be at least 2",
                "a batch size of 0        | engine:\\n  batch-size: 0                                 | | engine batch size",
                "a pool of one connection | db:\\n  pool-size: 1                                      | | db.pool-size",
                "a negative timeout       | db:\\n  statement-timeout: PT-1S                          | | db timeouts",
                "a threshold above 1      | observe:\\n  geen-contactgegevens:\\n    threshold: 1.5   | | observe.geen-contactgegevens.threshold",
                "an unknown schema mode   | db:\\n  schema: repair                                    | | db.schema",
                "a dev KEK outside dev    | dev: false\\nwebhook:\\n  allow-private-targets: false\\nprivacy:\\n  kek:\\n    versions:\\n      '1': ZGV2LW9ubHkta2VrLW5vdC1mb3ItcHJvZHVjdGlvbiE= | | privacy.kek.versions.1 holds a public dev value",
                "a dev NotifyNL key outside dev | dev: false\\nnotifynl:\\n  services:\\n    standaard:\\n      api-key: nmc_dev-7a4e1f0c-5b3d-4c2a-9e8f-1d2c3b4a5f60-2f9c8b7a-6e5d-4c3b-a2f1-0e9d8c7b6a50 | | notifynl.services.standaard.api-key holds a public dev value",
                "an http JWKS outside dev | dev: false\\nauth:\\n  jwks-uri: http://iam.example.nl/jwks            | | auth.jwks-uri must be https",
                "private targets outside dev | dev: false                                          | | webhook.allow-private-targets is for dev only",
                "a short callback token   | notifynl:\\n  callback-token: kort-maar-krachtig          | | notifynl.callback-token must be at least 32 random bytes",
                "a long token of few characters | notifynl:\\n  callback-token: abababababababababababababababababababababababababab | | notifynl.callback-token must be at least 32 random bytes",
                "a weak token of one service | notifynl:\\n  services:\\n    tweede:\\n      callback-token: 0123456789abcdef0123456789abcdef | | notifynl.services.tweede.callback-token must be at least 32 random bytes",
                "no token age             | auth:\\n  max-token-age: PT0S                            | | auth.max-token-age",
                "no token type            | auth:\\n  token-types: []                               | | auth.token-types",
                "an unknown LDV store     | ldv:\\n  store: mongodb                                  | | ldv.store",
                "ClickHouse without an endpoint | ldv:\\n  store: clickhouse                       | | ldv.clickhouse.endpoint",
                "an LDV table that is no name | ldv:\\n  postgresql:\\n    table: 'spans; DROP'     | | ldv: not a table",
            })
    void refusesWithOneLineNamingTheSetting(String what, String overrides, String edit, String named) {
        UnaryOperator<String> editBase = base -> {
            if (edit == null || edit.isBlank()) {
                return base;
            }
            String[] fromTo = edit.split("'>'");
            return base.replace(
                    fromTo[0].replace("'", "").replace("\\n", "\n"),
                    fromTo[1].replace("'", "").replace("\\n", "\n"));
        };
        Config config = TestNmc.config(
                DB, IAM, "http://127.0.0.1:9", "http://127.0.0.1:9", false, overrides.replace("\\n", "\n"), editBase);
        Throwable refused = catchThrowable(
                () -> Nmc.start(config, MutableClock.startingNow()).close());
        assertThat(refused).as(what).isNotNull();
        assertOneLine(Main.refusal(refused), named);
    }

    @Test
    void refusesASchemaThatDoesNotValidate() {
        TestDatabase empty = TestDatabase.unmigrated();
        Config config = TestNmc.config(
                empty, IAM, "http://127.0.0.1:9", "http://127.0.0.1:9", false, "db:\n  schema: validate", base -> base);
        Throwable refused = catchThrowable(
                () -> Nmc.start(config, MutableClock.startingNow()).close());
        assertOneLine(Main.refusal(refused), "db.schema validate: the database schema does not match");
    }

    @Test
    void refusesWhenItsPortIsInUseInsteadOfRunningWithNoPortOpen() throws Exception {
        try (java.net.ServerSocket taken =
                new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            Config config = TestNmc.config(
                    DB,
                    IAM,
                    "http://127.0.0.1:9",
                    "http://127.0.0.1:9",
                    false,
                    "server:\n  port: " + taken.getLocalPort(),
                    base -> base);
            Throwable refused = catchThrowable(
                    () -> Nmc.start(config, MutableClock.startingNow()).close());
            assertThat(refused).isNotNull();
            assertOneLine(Main.refusal(refused), "could not listen on server.port " + taken.getLocalPort());
        }
    }

    @Test
    void refusesAnUnknownLogFormat() {
        assertOneLine(Main.refusal(catchThrowable(() -> StdoutLogHandler.formatter("xml"))), "NMC_LOG_FORMAT");
    }

    private static void assertOneLine(String line, String named) {
        System.out.println("REFUSAL: " + line);
        assertThat(line).startsWith("NMC refuses to start: ").contains(named).doesNotContain("\n", "\r");
    }
}
