package nl.overheid.moz.nmc.testing;

import io.helidon.common.media.type.MediaTypes;
import io.helidon.config.Config;
import io.helidon.config.ConfigSources;
import java.time.Clock;
import java.util.Base64;
import nl.overheid.moz.nmc.Nmc;

/**
 * The real NMC assembly for tests, on the test database, with a test IAM gateway and a given NotifyNL
 * base URL. Background workers are off unless asked for: tests drive them with {@link ManualRunner}
 * and a {@link MutableClock}.
 */
public final class TestNmc {

    public static final String DV_A = "00000001111111111000";
    public static final String DV_B = "00000001222222222000";
    /** A DV with a quota of two acceptances a minute. */
    public static final String DV_SMALL_QUOTA = "00000001333333333000";

    public static final String BERICHTTYPE = "test-bericht";
    /** The processing activity of the test berichttypen, as their LDV records name it. */
    public static final String PROCESSING_ACTIVITY = "https://register.example.nl/verwerkingsactiviteiten/nmc-test";
    /** A berichttype of DV A whose notifications are valid one hour when the DV gives no geldigTot. */
    public static final String BERICHTTYPE_SHORT = "kort-bericht";

    public static final String TEMPLATE_ID = "5b7f9a1e-0c3d-4e2f-8a6b-9c0d1e2f3a4b";
    public static final String CALLBACK_TOKEN = "dlHxoVyoMmLPP6tqVEYW7mI3345xZJmTLMUE0Jr9m80";
    /** The key that signs feed cursors in tests (decoded). */
    /** The test configuration's KEK version 1 (base64), to leave it out with {@code editBase}. */
    public static final String KEK_1 =
            Base64.getEncoder().encodeToString("test-kek-0123456789abcdef0123456".getBytes());
    /** A second KEK version, as a newer instance of a rolling deploy holds it. */
    public static final String KEK_2 =
            Base64.getEncoder().encodeToString("test-kek-two-0123456789abcdef012".getBytes());

    /** The test configuration's LDV pepper, version 1 (decoded): the key of the records' data-subject HMAC. */
    public static final byte[] LDV_PEPPER = "test-ldv-pepper-0123456789abcdef0123456789".getBytes();

    public static final byte[] CURSOR_KEY = "test-cursor-key-0123456789abcdef0123456789".getBytes();
    /** The NotifyNL service of {@link #BERICHTTYPE} and {@link #BERICHTTYPE_SHORT}. */
    public static final String NOTIFY_SERVICE = "standaard";
    /** {@link #NOTIFY_SERVICE}'s NotifyNL API key, of the documented form {@code name-serviceId-secret}. */
    public static final String NOTIFY_API_KEY =
            "nmc_test-26785a09-ab16-4eb0-8407-a37497a57506-3d844edf-8d35-48ac-975b-e847b4f122b0";
    /** A second NotifyNL service, with its own key, templates and callback token. */
    public static final String NOTIFY_SERVICE_B = "tweede";

    public static final String NOTIFY_API_KEY_B =
            "nmc_test_b-9f1e2d3c-4b5a-4c6d-8e7f-0a1b2c3d4e5f-5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a";
    public static final String CALLBACK_TOKEN_B = "M1xyn_kLRUCBl3cIx_usaViiB0orFqc6cmq0k8xsZwo";
    /** A berichttype of {@link #NOTIFY_SERVICE_B}, allowed to DV A and DV B. */
    public static final String BERICHTTYPE_B = "tweede-bericht";

    public static final String TEMPLATE_ID_B = "8c2e4a6f-1d3b-4f5a-9e7c-2b4d6f8a0c1e";

    private TestNmc() {}

    public static Config config(TestDatabase database, TestIam iam, String notifyBaseUrl, boolean engineEnabled) {
        return config(database, iam, notifyBaseUrl, engineEnabled, "{}");
    }

    /** The test configuration with {@code overridesYaml} on top (e.g. a fixed port or a short MEBV period). */
    public static Config config(
            TestDatabase database, TestIam iam, String notifyBaseUrl, boolean engineEnabled, String overridesYaml) {
        return config(database, iam, notifyBaseUrl, notifyBaseUrl, engineEnabled, overridesYaml);
    }

    /**
     * The test configuration with NotifyNL at {@code notifyBaseUrl}, the Profielservice under {@code partiesBaseUrl}
     * and the processing log in this JVM's table of the test cluster's LDV database ({@link TestLdv}), with {@code
     * overridesYaml} on top.
     */
    public static Config config(
            TestDatabase database,
            TestIam iam,
            String notifyBaseUrl,
            String partiesBaseUrl,
            boolean engineEnabled,
            String overridesYaml) {
        return config(database, iam, notifyBaseUrl, partiesBaseUrl, engineEnabled, overridesYaml, base -> base);
    }

    /**
     * The same, with the base configuration's text edited first: for what an override cannot do, such as
     * leaving out a key version (configuration sources merge, they do not remove).
     */
    public static Config config(
            TestDatabase database,
            TestIam iam,
            String notifyBaseUrl,
            String partiesBaseUrl,
            boolean engineEnabled,
            String overridesYaml,
            java.util.function.UnaryOperator<String> editBase) {
        return Config.builder()
                .disableEnvironmentVariablesSource()
                .disableSystemPropertiesSource()
                .addSource(ConfigSources.create(overridesYaml, MediaTypes.APPLICATION_YAML))
                .addSource(ConfigSources.create(
                        editBase.apply(yaml(database, iam, notifyBaseUrl, partiesBaseUrl, engineEnabled)),
                        MediaTypes.APPLICATION_YAML))
                .build();
    }

    /**
     * The test configuration's text, before any override: for an NMC started as a process of its own, which reads
     * its configuration from a file.
     */
    public static String yaml(
            TestDatabase database, TestIam iam, String notifyBaseUrl, String partiesBaseUrl, boolean engineEnabled) {
        Base64.Encoder b64 = Base64.getEncoder();
        return """
                # tests: file JWKS, WireMock parties and DV webhooks on 127.0.0.1
                dev: true
                server:
                  port: 0
                  host: 127.0.0.1
                observe:
                  port: 0
                db:
                  url: "%s"
                  user: "%s"
                  password: "%s"
                  # the runtime login (nmc_runtime only), on a schema the test database migrated as its owner
                  schema: validate
                  pool-size: 8
                auth:
                  jwks-uri: "%s"
                  issuer: "%s"
                  audience: "%s"
                notifynl:
                  base-url: "%s"
                  callback-token: "%s"
                  services:
                    standaard:
                      api-key: "%s"
                    tweede:
                      api-key: "%s"
                      callback-token: "%s"
                profielservice:
                  base-url: "%s"
                  read-timeout: PT1S
                %s
                feed:
                  cursor-key: "%s"
                  # far above what tests do; the rate-limit test sets its own
                  rate-limit-per-second: 100000
                http:
                  # far above what tests do (their clock stands still, and some send 120 calls at once);
                  # RequestLimitsTest sets its own
                  rate-limit-per-second: 100000
                  bulk-rate-limit-per-second: 100000
                  repeat-rate-limit-per-second: 100000
                  max-concurrent-requests: 512
                  max-concurrent-requests-per-dv: 256
                  # refusals answered at once; RequestLimitsTest holds them as production does
                  refusal-delay: PT0S
                privacy:
                  pepper:
                    current-version: 1
                    versions:
                      "1": "%s"
                  payload-pepper:
                    current-version: 1
                    versions:
                      "1": "%s"
                  ldv-pepper:
                    current-version: 1
                    versions:
                      "1": "%s"
                  kek:
                    current-version: 1
                    versions:
                      "1": "%s"
                lifecycle:
                  mebv-period: P7D
                  callback-window: PT25M
                webhook:
                  issuer: https://nmc.test.local
                  allow-private-targets: true
                  connect-timeout: PT1S
                  read-timeout: PT2S
                  signing-keys:
                    - %s
                engine:
                  enabled: %s
                  poll-interval: PT0.1S
                  backoff-base: PT1S
                  backoff-max: PT10S
                register:
                  seed:
                    berichttypen:
                      - code: "%s"
                        template-id: "%s"
                        verwerkingsactiviteit: "%s"
                        profiel-dienst-naam: Meldingen
                      - code: kort-bericht
                        template-id: "%s"
                        standaard-geldigheid: PT1H
                        verwerkingsactiviteit: "%s"
                      - code: "%s"
                        template-id: "%s"
                        notify-service: tweede
                        verwerkingsactiviteit: "%s"
                    dienstverleners:
                      - oin: "%s"
                        naam: DV A
                        identificatie-typen: [KVK, RSIN, BSN]
                        quotum-per-minuut: 1000
                        berichttypen: ["%s", kort-bericht, "%s"]
                      - oin: "%s"
                        naam: DV B
                        quotum-per-minuut: 1000
                        berichttypen: ["%s", "%s"]
                      - oin: "%s"
                        naam: DV met klein quotum
                        quotum-per-minuut: 2
                        berichttypen: ["%s"]
                """.formatted(
                        database.url(),
                        database.appUser(),
                        database.appPassword(),
                        iam.jwksFile().toUri(),
                        TestIam.ISSUER,
                        TestIam.AUDIENCE,
                        notifyBaseUrl,
                        CALLBACK_TOKEN,
                        NOTIFY_API_KEY,
                        NOTIFY_API_KEY_B,
                        CALLBACK_TOKEN_B,
                        partiesBaseUrl,
                        TestLdv.get().yaml().strip(),
                        b64.encodeToString(CURSOR_KEY),
                        b64.encodeToString("test-pepper-0123456789abcdef0123456789".getBytes()),
                        b64.encodeToString("test-payload-pepper-0123456789abcdef01234567".getBytes()),
                        b64.encodeToString(LDV_PEPPER),
                        b64.encodeToString("test-kek-0123456789abcdef0123456".getBytes()),
                        TestWebhookKeys.CURRENT.yaml(null, null),
                        engineEnabled,
                        BERICHTTYPE,
                        TEMPLATE_ID,
                        PROCESSING_ACTIVITY,
                        TEMPLATE_ID,
                        PROCESSING_ACTIVITY,
                        BERICHTTYPE_B,
                        TEMPLATE_ID_B,
                        PROCESSING_ACTIVITY,
                        DV_A,
                        BERICHTTYPE,
                        BERICHTTYPE_B,
                        DV_B,
                        BERICHTTYPE,
                        BERICHTTYPE_B,
                        DV_SMALL_QUOTA,
                        BERICHTTYPE);
    }

    public static Nmc start(TestDatabase database, TestIam iam, String notifyBaseUrl, Clock clock) {
        return Nmc.start(config(database, iam, notifyBaseUrl, false), clock);
    }
}
