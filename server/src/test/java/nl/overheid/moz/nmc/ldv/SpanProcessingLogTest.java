package nl.overheid.moz.nmc.ldv;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import nl.overheid.moz.nmc.observe.NmcMetrics;
import nl.overheid.moz.nmc.privacy.Peppers;
import nl.overheid.moz.nmc.profiel.Identification;
import nl.overheid.moz.nmc.testing.MutableClock;
import nl.overheid.moz.nmc.trace.Span;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The processing log's spans and rows without a database: the ids are the call's own, the rows the LDV wrapper's,
 * the caller learns synchronously whether its row was stored, and a failed call gets a child ERROR record.
 */
class SpanProcessingLogTest {

    private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String ACCEPTANCE = "00f067aa0ba902b7";
    private static final String ACTIVITY = "https://register.example.nl/verwerkingsactiviteiten/nmc-test";

    private final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T10:15:30.123456Z"));
    private final Store store = new Store();
    private final SpanProcessingLog log = new SpanProcessingLog(
            store,
            "notificatiemanagementcomponent",
            Map.of(
                    ProcessingLog.Party.NOTIFYNL,
                    "https://api.notifynl.example/?x=1",
                    ProcessingLog.Party.PROFIELSERVICE,
                    "https://user:secret@outway.example:8443/profiel"),
            clock,
            new NmcMetrics());

    @AfterEach
    void close() {
        log.close();
    }

    /** A store in memory that can be told to fail. */
    static final class Store implements SpanStore {
        final List<SpanRow> rows = new ArrayList<>();
        int schemaChecks;
        String failWith;

        @Override
        public void ensureSchema() {
            schemaChecks++;
            if (failWith != null) {
                throw new Failure(failWith, "test", null);
            }
        }

        @Override
        public void insert(List<SpanRow> inserted) {
            if (failWith != null) {
                throw new Failure(failWith, "test", null);
            }
            rows.addAll(inserted);
        }

        @Override
        public void close() {}
    }

    private ProcessingLog.Processing processing(Span span, ProcessingLog.Operation operation, String fsc) {
        return new ProcessingLog.Processing(
                span,
                operation,
                ACTIVITY,
                new DataSubjects.DataSubject("c2VjcmV0LXBzZXVkb255bS1vZi1hLXN1YmplY3QtMDE=", "KVK"),
                clock.instant(),
                null,
                fsc);
    }

    @Test
    void aRecordIsTheCallsSpanStoredBeforeRecordReturnsInTheWrappersRowLayout() {
        Span call = Span.childOf(TRACE, ACCEPTANCE);
        ProcessingLog.Written written = log.record(processing(call, ProcessingLog.Operation.EMAIL_VERSTUREN, null));

        assertThat(written).isInstanceOf(ProcessingLog.Written.Acknowledged.class);
        assertThat(store.rows).singleElement().satisfies(row -> {
            assertThat(row.traceId()).isEqualTo(TRACE);
            assertThat(row.spanId()).as("the span id the call carries").isEqualTo(call.spanId());
            assertThat(row.parentSpanId()).as("the acceptance").isEqualTo(ACCEPTANCE);
            assertThat(row.name()).isEqualTo("nmc.notifynl.email-versturen");
            assertThat(row.status()).isEqualTo("UNSET");
            assertThat(row.startTimeMillis())
                    .as("epoch ms on the NMC's clock, truncated")
                    .isEqualTo(row.endTimeMillis())
                    .isEqualTo(clock.instant().toEpochMilli());
            assertThat(row.attributes())
                    .containsExactlyInAnyOrderEntriesOf(Map.of(
                            "dpl.core.processing_activity_id", ACTIVITY,
                            "dpl.core.data_subject_id", "c2VjcmV0LXBzZXVkb255bS1vZi1hLXN1YmplY3QtMDE=",
                            "dpl.core.data_subject_id_type", "KVK",
                            "dpl.core.foreign_operation.processor", "https://api.notifynl.example/"));
            assertThat(row.resource())
                    .containsEntry("service.name", "notificatiemanagementcomponent")
                    .containsEntry("telemetry.sdk.language", "java")
                    .containsEntry("telemetry.sdk.name", "opentelemetry")
                    .containsKey("telemetry.sdk.version");
        });
    }

    @Test
    void aCallThroughFscNamesItsTransactionAndTheProcessorWithoutCredentials() {
        log.record(processing(
                Span.childOf(TRACE, ACCEPTANCE),
                ProcessingLog.Operation.CONTACTGEGEVENS_OPVRAGEN,
                "0190d7a2-7b1c-7c3e-9f00-0123456789ab"));

        assertThat(store.rows.getFirst().attributes())
                .containsEntry("dpl.core.foreign_operation.fsc_transaction_id", "0190d7a2-7b1c-7c3e-9f00-0123456789ab")
                .containsEntry("dpl.core.foreign_operation.processor", "https://outway.example:8443/profiel");
    }

    @Test
    void theDvsWebhookIsNamedByTheProcessing() {
        log.record(new ProcessingLog.Processing(
                Span.childOf(TRACE, ACCEPTANCE),
                ProcessingLog.Operation.STATUS_TERUGKOPPELEN,
                ACTIVITY,
                new DataSubjects.DataSubject(null, null),
                clock.instant(),
                "https://dv.example/webhook?token=geheim",
                null));

        assertThat(store.rows.getFirst().attributes())
                .as("the standard wants a data subject in every record: an erased one is MOZa's sentinel"
                        + " (Profielservice LogboekConstants.GEEN_SUBJECT, 3481f90), never left out or empty")
                .containsEntry("dpl.core.data_subject_id", "onbekend")
                .containsEntry("dpl.core.data_subject_id_type", "ONBEKEND")
                .containsEntry("dpl.core.foreign_operation.processor", "https://dv.example/webhook");
    }

    @Test
    void aRootSpanKeepsTheNotificationsTraceAndHasNoParent() {
        Span root = new Span(TRACE, Span.newSpanId(), null);
        log.record(processing(root, ProcessingLog.Operation.STATUS_OPVRAGEN, null));

        assertThat(store.rows.getFirst().traceId()).isEqualTo(TRACE);
        assertThat(store.rows.getFirst().parentSpanId()).isNull();
    }

    @Test
    void aRowNotStoredIsUnavailableWithItsClassAndTheNextOneIsStoredAgain() {
        store.failWith = "disk-full";
        Span call = Span.childOf(TRACE, ACCEPTANCE);

        ProcessingLog.Written written = log.record(processing(call, ProcessingLog.Operation.EMAIL_VERSTUREN, null));

        assertThat(written).isEqualTo(new ProcessingLog.Written.Unavailable("disk-full"));
        assertThat(store.rows).isEmpty();

        store.failWith = null;
        assertThat(log.record(
                        processing(Span.childOf(TRACE, ACCEPTANCE), ProcessingLog.Operation.EMAIL_VERSTUREN, null)))
                .isInstanceOf(ProcessingLog.Written.Acknowledged.class);
    }

    @Test
    void aFailedCallGetsAnErrorRecordAsTheChildOfItsRecord() {
        Span call = Span.childOf(TRACE, ACCEPTANCE);
        ProcessingLog.Processing processing = processing(call, ProcessingLog.Operation.EMAIL_VERSTUREN, null);
        log.record(processing);
        clock.advance(java.time.Duration.ofMillis(250));

        log.failed(processing, "http-503", clock.instant());

        assertThat(store.rows).hasSize(2);
        SpanRow error = store.rows.get(1);
        assertThat(error.traceId()).isEqualTo(TRACE);
        assertThat(error.parentSpanId()).isEqualTo(call.spanId());
        assertThat(error.spanId()).isNotEqualTo(call.spanId());
        assertThat(error.status()).isEqualTo("ERROR");
        assertThat(error.name()).isEqualTo("nmc.notifynl.email-versturen");
        assertThat(error.startTimeMillis()).isEqualTo(clock.instant().toEpochMilli());
        assertThat(error.attributes())
                .containsEntry("exception.type", "http-503")
                .containsEntry("dpl.core.data_subject_id", "c2VjcmV0LXBzZXVkb255bS1vZi1hLXN1YmplY3QtMDE=");
    }

    @Test
    void aConfiguredPartyIsNamedWithoutQueryAndOneThatIsNoUriStopsTheStart() {
        assertThat(SpanProcessingLog.processor("urn:nld:moza:profielservice?versie=1"))
                .isEqualTo("urn:nld:moza:profielservice");
        assertThat(SpanProcessingLog.processor("https://gebruiker:geheim@profiel.example/api?x=1#y"))
                .isEqualTo("https://profiel.example/api");
        assertThat(SpanProcessingLog.processor("https://profiel_service.example/api"))
                .as("no host Java can read: refused, not written as https:/api")
                .isNull();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new SpanProcessingLog(
                        store,
                        "notificatiemanagementcomponent",
                        Map.of(
                                nl.overheid.moz.nmc.ldv.ProcessingLog.Party.PROFIELSERVICE,
                                "profielservice zonder schema"),
                        clock,
                        new NmcMetrics()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ldv.processor");
    }

    @Test
    void theDataSubjectIsMozasPseudonym() throws Exception {
        byte[] pepper = "a-pepper-of-at-least-thirty-two-bytes-long".getBytes();
        DataSubjects subjects = new DataSubjects(new Peppers(1, Map.of(1, pepper)));
        javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
        mac.init(new javax.crypto.spec.SecretKeySpec(pepper, "HmacSHA256"));

        DataSubjects.DataSubject kvk = subjects.party(new Identification(Identification.Type.KVK, "12345670"));
        DataSubjects.DataSubject email = subjects.email("Iemand@Example.nl");

        assertThat(kvk.id()).isEqualTo(Base64.getEncoder().encodeToString(mac.doFinal("12345670".getBytes())));
        assertThat(kvk.id()).hasSize(44).endsWith("=");
        assertThat(kvk.type()).isEqualTo("KVK");
        assertThat(email.id())
                .as("the address as the DV gave it, as MOZa's NMC hashes it")
                .isEqualTo(Base64.getEncoder().encodeToString(mac.doFinal("Iemand@Example.nl".getBytes())));
        assertThat(email.type()).isEqualTo("EMAIL");
        assertThat(kvk.pepperVersion()).isEqualTo(1);
    }

    /**
     * The Profielservice keys its HMAC with the UTF-8 bytes of its {@code hash.pepper} string ({@code HashHelper},
     * MinBZK/moza-profiel-service 0ad27f0); the NMC reads base64. The same secret, configured as the base64 of those
     * bytes (CONFIGURATION.md), gives MOZa's pseudonym: one party's records match across the two services.
     */
    @Test
    void theProfielservicesPepperStringConfiguredAsTheBase64OfItsUtf8BytesGivesTheSamePseudonym() throws Exception {
        String hashPepper = "een-pepper-van-minstens-32-tekens-lang-€";
        Peppers configured = Peppers.from(io.helidon.config.Config.just(io.helidon.config.ConfigSources.create(Map.of(
                        "ldv-pepper.versions.1",
                        Base64.getEncoder()
                                .encodeToString(hashPepper.getBytes(java.nio.charset.StandardCharsets.UTF_8)))))
                .get("ldv-pepper"));
        // HashHelper.hashIdentifier, as the Profielservice computes it.
        javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
        mac.init(new javax.crypto.spec.SecretKeySpec(
                hashPepper.getBytes(java.nio.charset.StandardCharsets.UTF_8), "HmacSHA256"));
        String profielservice = Base64.getEncoder()
                .encodeToString(mac.doFinal("12345670".getBytes(java.nio.charset.StandardCharsets.UTF_8)));

        assertThat(new DataSubjects(configured)
                        .party(new Identification(Identification.Type.KVK, "12345670"))
                        .id())
                .isEqualTo(profielservice);
    }
}
