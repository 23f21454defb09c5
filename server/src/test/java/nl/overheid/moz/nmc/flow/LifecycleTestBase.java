package nl.overheid.moz.nmc.flow;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import nl.overheid.moz.nmc.Nmc;
import nl.overheid.moz.nmc.Parties;
import nl.overheid.moz.nmc.testing.Http;
import nl.overheid.moz.nmc.testing.JournaledLdv;
import nl.overheid.moz.nmc.testing.ManualRunner;
import nl.overheid.moz.nmc.testing.MutableClock;
import nl.overheid.moz.nmc.testing.PartiesStub;
import nl.overheid.moz.nmc.testing.TestDatabase;
import nl.overheid.moz.nmc.testing.TestIam;
import nl.overheid.moz.nmc.testing.TestLdv;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The harness of the lifecycle tests: the real assembly over HTTP on the test database, the parties it calls
 * on WireMock ({@link PartiesStub}), time in the test's hands (seven-day periods pass in milliseconds), and
 * workers that run one claim round at a time. Helpers speak like a DV and like NotifyNL.
 */
abstract class LifecycleTestBase {

    protected static final String EMAIL = "ontvanger.lifecycle@example.nl";
    protected static final String DV_REF = "DOSSIER-4711";
    protected static final String SECRET_TEXT = "Geheime-personalisatie-42";
    protected static final TestDatabase DB = TestDatabase.get();
    protected static final TestIam IAM = new TestIam();

    protected final MutableClock clock = MutableClock.startingNow();
    protected final CapturedLogs logs = new CapturedLogs();
    protected PartiesStub notify;
    protected Nmc nmc;
    protected Http http;

    /** The NMC's loggers, held so the level set for the test sticks (loggers are weakly referenced). */
    private static final Logger NMC_LOGGER = Logger.getLogger("nl.overheid.moz.nmc");

    private java.util.logging.Level configuredLevel;

    @BeforeEach
    void start() {
        DB.reset();
        // Every record, FINE included, reaches the captured logs: no level may carry personal data.
        configuredLevel = NMC_LOGGER.getLevel();
        NMC_LOGGER.setLevel(java.util.logging.Level.ALL);
        logs.setLevel(java.util.logging.Level.ALL);
        Logger.getLogger("").addHandler(logs);
        notify = new PartiesStub();
        TestLdv.get().reset();
        var config = TestNmc.config(DB, IAM, notify.baseUrl(), false, overridesYaml());
        nmc = Nmc.start(config, clock, JournaledLdv.around(Parties.from(config, clock), notify.baseUrl()));
        http = Http.of(nmc);
    }

    /** Configuration on top of the test's (a test class's own settings). */
    protected String overridesYaml() {
        return "{}";
    }

    @AfterEach
    void stop() {
        nmc.close();
        notify.close();
        Logger.getLogger("").removeHandler(logs);
        NMC_LOGGER.setLevel(configuredLevel);
    }

    protected String tokenA() {
        return IAM.token(TestNmc.DV_A, clock.instant());
    }

    protected String tokenB() {
        return IAM.token(TestNmc.DV_B, clock.instant());
    }

    protected UUID accept(String dvRef, Map<String, String> extra) {
        Http.Response response = postDecentraal(dvRef, extra);
        assertThat(response.status()).as(response.body()).isEqualTo(202);
        UUID id = UUID.fromString(response.json().path("id").asText());
        assertThat(response.header("Location")).contains("/api/nmc/v1/notificaties/" + id);
        return id;
    }

    /** A decentralised notification of DV A to {@link #EMAIL} with the test's personalisation, as answered. */
    protected Http.Response postDecentraal(String dvRef, Map<String, String> extra) {
        Map<String, Object> body = new java.util.HashMap<>(Map.of(
                "dvRef",
                dvRef,
                "berichttype",
                TestNmc.BERICHTTYPE,
                "emailadres",
                EMAIL,
                "personalisation",
                Map.of("tekst", SECRET_TEXT)));
        body.putAll(extra);
        return http.post("/api/nmc/v1/decentraal/notificaties", tokenA(), Http.json(body));
    }

    /** Accepts a centralised notification for this KVK number (with the test's personalisation). */
    protected UUID acceptCentraal(String dvRef, String kvkNummer, Map<String, String> extra) {
        Map<String, Object> body = new java.util.HashMap<>(Map.of(
                "dvRef",
                dvRef,
                "berichttype",
                TestNmc.BERICHTTYPE,
                "identificatieType",
                "KVK",
                "identificatieNummer",
                kvkNummer,
                "personalisation",
                Map.of("tekst", SECRET_TEXT)));
        body.putAll(extra);
        Http.Response response = http.post("/api/nmc/v1/centraal/notificaties", tokenA(), Http.json(body));
        assertThat(response.status()).as(response.body()).isEqualTo(202);
        return UUID.fromString(response.json().path("id").asText());
    }

    protected String status(UUID id) {
        JsonNode notificatie =
                http.get("/api/nmc/v1/notificaties/" + id, tokenA()).json();
        return notificatie.path("status").asText() + ":"
                + notificatie.path("versie").asInt();
    }

    protected void receipt(UUID id, int number, String status) {
        receipt(id, number, status, notifyId(id, number));
    }

    /** A receipt under this NotifyNL id (e.g. a duplicate's), processed at once. */
    protected void receipt(UUID id, int number, String status, String notifyId) {
        assertThat(postReceipt(receiptBody(id, number, status, notifyId, clock.instant()))
                        .status())
                .isEqualTo(200);
        ManualRunner.of(nmc).runWorkersOnce();
    }

    protected Http.Response postReceipt(String body) {
        return http.post("/api/nmc/v1/notifynl-callback", TestNmc.CALLBACK_TOKEN, body);
    }

    protected String receiptBody(UUID id, int number, String status) {
        return receiptBody(id, number, status, notifyId(id, number), clock.instant());
    }

    /** A receipt as NotifyNL sends it, under any NotifyNL id (e.g. a duplicate's) and completion time. */
    protected String receiptBody(UUID id, int number, String status, String notifyId, Instant completed) {
        UUID poging = pogingId(id, number);
        return Http.json(Map.of(
                "id",
                notifyId,
                "reference",
                poging.toString(),
                "to",
                EMAIL,
                "status",
                status,
                "created_at",
                completed.minusSeconds(5).toString(),
                "completed_at",
                completed.toString(),
                "sent_at",
                completed.minusSeconds(3).toString(),
                "notification_type",
                "email",
                "template_id",
                TestNmc.TEMPLATE_ID,
                "template_version",
                1));
    }

    protected UUID pogingId(UUID notificatie, int number) {
        return UUID.fromString(query("SELECT id FROM poging WHERE notificatie = ? AND nummer = " + number, notificatie)
                .getFirst());
    }

    protected String notifyId(UUID id, int number) {
        return query("SELECT notify_id FROM poging WHERE id = ?", pogingId(id, number))
                .getFirst();
    }

    protected static void execute(String sql, UUID parameter) {
        DB.execute(sql, parameter);
    }

    /** A statement without parameters (test set-up of the register). */
    protected static void sql(String sql) {
        DB.execute(sql, null);
    }

    protected List<String> pogingen(UUID id) {
        return query("SELECT nummer || ':' || status FROM poging WHERE notificatie = ? ORDER BY nummer", id);
    }

    protected static List<String> query(String sql, UUID parameter) {
        return DB.query(sql, parameter);
    }

    /** Everything the NMC logged during the test, formatted as it would be written, and the records themselves. */
    protected static final class CapturedLogs extends Handler {
        protected final ByteArrayOutputStream text = new ByteArrayOutputStream();
        protected final SimpleFormatter formatter = new SimpleFormatter();
        private final List<LogRecord> records = new ArrayList<>();

        @Override
        public synchronized void publish(LogRecord record) {
            text.writeBytes(formatter.format(record).getBytes(java.nio.charset.StandardCharsets.UTF_8));
            records.add(record);
        }

        /** The records of one logger (a class's name). */
        synchronized List<LogRecord> of(Class<?> logger) {
            return records.stream()
                    .filter(record -> logger.getName().equals(record.getLoggerName()))
                    .toList();
        }

        synchronized List<LogRecord> records() {
            return List.copyOf(records);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}

        synchronized String text() {
            return text.toString(java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    /** Restarts the NMC with this configuration on top of the test configuration; the stubs stay. */
    protected void restartWithConfig(String overridesYaml) {
        nmc.close();
        nmc = startAnother(overridesYaml);
        http = Http.of(nmc);
    }

    /** Another NMC instance on the same database and clock (the caller closes it). */
    protected Nmc startAnother(String overridesYaml) {
        var config = TestNmc.config(DB, IAM, notify.baseUrl(), notify.baseUrl(), false, overridesYaml);
        return Nmc.start(config, clock, JournaledLdv.around(Parties.from(config, clock), notify.baseUrl()));
    }

    /** Restarts the NMC with other parties (e.g. a NotifyNL that holds its answer); the stub stays. */
    protected void restartWith(java.util.function.UnaryOperator<nl.overheid.moz.nmc.Parties> replace) {
        nmc.close();
        var config = TestNmc.config(DB, IAM, notify.baseUrl(), false);
        nmc = Nmc.start(
                config, clock, replace.apply(JournaledLdv.around(Parties.from(config, clock), notify.baseUrl())));
        http = Http.of(nmc);
    }

    /**
     * {@code parties}' LDV, which runs {@code meanwhile} once (while {@code armed}), right after the record of the
     * first processing of {@code operation}: something happens while a task waits for the LDV store.
     */
    protected static nl.overheid.moz.nmc.ldv.ProcessingLog onceAfterRecord(
            Parties parties,
            nl.overheid.moz.nmc.ldv.ProcessingLog.Operation operation,
            java.util.concurrent.atomic.AtomicBoolean armed,
            Runnable meanwhile) {
        return new nl.overheid.moz.nmc.ldv.ProcessingLog() {
            @Override
            public Written record(Processing processing) {
                var written = parties.ldv().record(processing);
                if (processing.operation() == operation && armed.getAndSet(false)) {
                    meanwhile.run();
                }
                return written;
            }

            @Override
            public void failed(Processing processing, String reason, Instant at) {
                parties.ldv().failed(processing, reason, at);
            }
        };
    }

    /** A receipt comes in and is processed, on a thread of its own, before this one goes on. */
    protected void processedMeanwhile(String receipt) {
        postReceipt(receipt);
        Thread processor = Thread.ofVirtual()
                .start(() -> ManualRunner.of(nmc).runWorkerOnce(nl.overheid.moz.nmc.engine.TaskKind.VERWERKEN));
        try {
            processor.join(20_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The configuration of a newer instance in a rolling deploy that added KEK version 2 and made it current. */
    protected static final String KEK_TWO_CURRENT = """
            privacy:
              kek:
                current-version: 2
                versions:
                  "2": "%s"
            """.formatted(TestNmc.KEK_2);

    /** The notification whose task's lease {@link #restartWithSlowPartiesThatNoteTheLease} notes. */
    protected volatile UUID leaseSubject;

    /**
     * Restarts the NMC with parties (the LDV, the Profielservice, NotifyNL) that, at every call, note how many
     * seconds of lease the calling task of {@link #leaseSubject} has left, and then take 25 seconds of the test's
     * clock. Returns the notes, in call order.
     */
    protected List<String> restartWithSlowPartiesThatNoteTheLease() {
        List<String> leases = new java.util.concurrent.CopyOnWriteArrayList<>();
        Runnable slowCall = () -> {
            String left = query(
                            "SELECT extract(epoch FROM max(lease_tot) - CAST('" + clock.instant()
                                    + "' AS timestamptz)) FROM taak WHERE notificatie = ?",
                            leaseSubject)
                    .getFirst();
            leases.add(
                    left == null
                            ? "no lease"
                            : new java.math.BigDecimal(left)
                                    .stripTrailingZeros()
                                    .toPlainString());
            clock.advance(java.time.Duration.ofSeconds(25));
        };
        restartWith(parties -> {
            nl.overheid.moz.nmc.sending.NotifyNl notifyNl = parties.notifyNl().of("standaard");
            nl.overheid.moz.nmc.profiel.Profielservice profielservice = parties.profielservice();
            nl.overheid.moz.nmc.ldv.ProcessingLog ldv = parties.ldv();
            return parties.withLdv(new nl.overheid.moz.nmc.ldv.ProcessingLog() {
                        @Override
                        public Written record(Processing processing) {
                            slowCall.run();
                            return ldv.record(processing);
                        }

                        @Override
                        public void failed(Processing processing, String reason, java.time.Instant at) {
                            ldv.failed(processing, reason, at);
                        }
                    })
                    .withProfielservice(new nl.overheid.moz.nmc.profiel.Profielservice() {
                        @Override
                        public Call call(nl.overheid.moz.nmc.trace.Span span) {
                            return profielservice.call(span);
                        }

                        @Override
                        public Lookup lookUp(
                                nl.overheid.moz.nmc.profiel.Identification party,
                                String dienstverlener,
                                String dienst,
                                Call call) {
                            slowCall.run();
                            return profielservice.lookUp(party, dienstverlener, dienst, call);
                        }

                        @Override
                        public Removal remove(
                                UUID contactgegeven, nl.overheid.moz.nmc.profiel.Identification party, Call call) {
                            slowCall.run();
                            return profielservice.remove(contactgegeven, party, call);
                        }
                    })
                    .withNotifyNl(new nl.overheid.moz.nmc.sending.NotifyNl() {
                        @Override
                        public SendResult sendEmail(
                                UUID templateId,
                                String emailAddress,
                                Map<String, String> personalisation,
                                UUID reference,
                                nl.overheid.moz.nmc.trace.Span span) {
                            slowCall.run();
                            return notifyNl.sendEmail(templateId, emailAddress, personalisation, reference, span);
                        }

                        @Override
                        public ReferenceLookup findAllByReference(UUID reference, nl.overheid.moz.nmc.trace.Span span) {
                            slowCall.run();
                            return notifyNl.findAllByReference(reference, span);
                        }

                        @Override
                        public Lookup findById(UUID notifyId, nl.overheid.moz.nmc.trace.Span span) {
                            slowCall.run();
                            return notifyNl.findById(notifyId, span);
                        }

                        @Override
                        public TemplateLookup template(UUID templateId) {
                            return notifyNl.template(templateId);
                        }
                    });
        });
        return leases;
    }
}
