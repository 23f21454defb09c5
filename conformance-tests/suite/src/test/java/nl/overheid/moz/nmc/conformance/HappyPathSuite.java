package nl.overheid.moz.nmc.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.format.EventFormat;
import io.cloudevents.core.provider.EventFormatProvider;
import io.cloudevents.jackson.JsonFormat;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;
import nl.overheid.moz.nmc.simulator.NotifyNlSimulator;
import nl.overheid.moz.nmc.simulator.ProfielserviceSimulator;
import nl.overheid.moz.nmc.testing.TestDatabase;
import nl.overheid.moz.nmc.testing.TestLdv;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.Test;

/**
 * The happy path and NotifyNL's simulated outcomes, end to end against the running NMC: written once,
 * run through raw HTTP and through the generated SDK (the subclasses say how to talk to the NMC).
 */
abstract class HappyPathSuite {

    private static final Duration PATIENCE = Duration.ofSeconds(40);
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final EventFormat CLOUD_EVENTS =
            EventFormatProvider.getInstance().resolveFormat(JsonFormat.CONTENT_TYPE);

    protected final ConformanceEnvironment environment = ConformanceEnvironment.get();

    /** The result of an acceptance. */
    protected record Accepted(UUID id, String status, int version, String location) {}

    /** The status of a notification: status, version and reason (may be null). */
    protected record Snapshot(String status, int version, String reden) {}

    /** A feed page: the events as JSON and the next cursor. */
    protected record Page(List<JsonNode> events, String cursor) {}

    protected Accepted accept(String token, String dvRef, String email) {
        return accept(token, dvRef, email, TestNmc.BERICHTTYPE);
    }

    protected abstract Accepted accept(String token, String dvRef, String email, String berichttype);

    /** A centralised notification: the NMC looks the address of this KVK number up at the Profielservice. */
    protected abstract Accepted acceptCentraal(String token, String dvRef, String kvkNummer);

    protected abstract Snapshot status(String token, UUID id);

    /**
     * A bulk submission in the decentralised regime, one item per dvRef (all to {@code email}); the items'
     * HTTP statuses in order, and the accepted ones (null for a refused item).
     */
    protected abstract List<Integer> acceptBulk(
            String token, List<String> dvRefs, String email, List<Accepted> accepted);

    protected abstract Page feed(String token, String cursor);

    protected abstract void acknowledge(String token, String cursor);

    private String token() {
        return environment.token(TestNmc.DV_A);
    }

    @Test
    void aNotificationTravelsToDefinitiefBezorgdAndTheFeedYieldsItsFiveEvents() throws Exception {
        Accepted accepted = accept(token(), "conf-" + UUID.randomUUID(), "ontvanger@example.nl");
        assertThat(accepted.status()).isEqualTo("aangenomen");
        assertThat(accepted.version()).isEqualTo(1);
        assertThat(accepted.location()).endsWith("/api/nmc/v1/notificaties/" + accepted.id());

        Snapshot last = awaitStatus(accepted.id(), "definitief-bezorgd");
        assertThat(last.version()).isEqualTo(5);

        // The feed shows an event once no older transaction in the cluster runs: under load a moment later.
        List<JsonNode> events = await(() -> {
            List<JsonNode> read = eventsOf(accepted.id());
            return read.size() >= 5 ? read : null;
        });
        assertThat(events).hasSize(5);
        List<String> types = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            JsonNode event = events.get(i);
            assertThat(event.path("sequence").isTextual()).isTrue();
            assertThat(event.path("sequence").asText()).isEqualTo(Integer.toString(i + 1));
            assertThat(event.path("sequencetype").asText()).isEqualTo("Integer");
            assertThat(event.path("subject").asText()).isEqualTo(accepted.id().toString());
            assertThat(event.path("data").path("versie").asInt()).isEqualTo(i + 1);
            CloudEvent parsed = CLOUD_EVENTS.deserialize(MAPPER.writeValueAsBytes(event));
            assertThat(parsed.getSpecVersion().toString()).isEqualTo("1.0");
            assertThat(parsed.getExtension("sequence")).isEqualTo(Integer.toString(i + 1));
            assertThat(parsed.getDataContentType()).isEqualTo("application/json");
            types.add(parsed.getType());
        }
        assertThat(types)
                .containsExactly(
                        "nl.overheid.moz.notificatie.status.aangenomen",
                        "nl.overheid.moz.notificatie.status.in-verzending",
                        "nl.overheid.moz.notificatie.status.verzonden",
                        "nl.overheid.moz.notificatie.status.bezorgd",
                        "nl.overheid.moz.notificatie.status.definitief-bezorgd");
        assertThat(new String(MAPPER.writeValueAsBytes(events), StandardCharsets.UTF_8))
                .doesNotContain("ontvanger@example.nl");
    }

    @Test
    void aBulkSubmissionIsAnsweredPerItemAndEachNotificationTravelsToDefinitiefBezorgd() {
        String first = "conf-bulk-" + UUID.randomUUID();
        List<String> dvRefs = List.of(first, "conf-bulk-" + UUID.randomUUID(), first, "ongeldig\u00e9");
        List<Accepted> accepted = new ArrayList<>();
        List<Integer> statuses = acceptBulk(token(), dvRefs, "ontvanger@example.nl", accepted);
        assertThat(statuses).containsExactly(202, 202, 202, 400);
        assertThat(accepted.get(2).id())
                .as("a repeat within the request")
                .isEqualTo(accepted.get(0).id());
        assertThat(accepted.get(3)).isNull();
        for (Accepted one : accepted.subList(0, 2)) {
            assertThat(one.status()).isEqualTo("aangenomen");
            assertThat(awaitStatus(one.id(), "definitief-bezorgd").version()).isEqualTo(5);
        }
    }

    @Test
    void theAcknowledgedCursorIsWhereTheFeedContinues() {
        List<String> before = new ArrayList<>();
        Page page = feed(token(), null);
        while (!page.events().isEmpty()) {
            page.events().forEach(event -> before.add(event.path("id").asText()));
            page = feed(token(), page.cursor());
        }
        String acknowledged = page.cursor();
        acknowledge(token(), acknowledged);

        Accepted accepted = accept(token(), "conf-" + UUID.randomUUID(), "ontvanger@example.nl");
        List<JsonNode> after = await(() -> {
            List<JsonNode> events = new ArrayList<>();
            String cursor = acknowledged;
            for (Page next = feed(token(), cursor); !next.events().isEmpty(); next = feed(token(), cursor)) {
                events.addAll(next.events());
                cursor = next.cursor();
            }
            boolean arrived = events.stream()
                    .anyMatch(
                            e -> e.path("subject").asText().equals(accepted.id().toString()));
            return arrived ? events : null;
        });
        // Other notifications may move on meanwhile; what matters is that nothing before the cursor repeats
        // and the new notification's first event follows it.
        assertThat(after).noneMatch(event -> before.contains(event.path("id").asText()));
        assertThat(after)
                .anyMatch(event ->
                        event.path("subject").asText().equals(accepted.id().toString())
                                && event.path("sequence").asText().equals("1"));
    }

    @Test
    void aBerichttypeOfTheSecondNotifyNlServiceIsSentWithThatServicesKeyAndItsReceiptsAreTaken() {
        Accepted accepted = accept(token(), "conf-" + UUID.randomUUID(), "ontvanger@example.nl", TestNmc.BERICHTTYPE_B);
        // The simulator refuses a template of another service (400 "Template not found", a setup error) and checks
        // the JWT against the secret of the service it names; the receipts come back with that service's token.
        awaitStatus(accepted.id(), "definitief-bezorgd");
        String serviceB = TestNmc.NOTIFY_API_KEY_B.substring(
                TestNmc.NOTIFY_API_KEY_B.length() - 73, TestNmc.NOTIFY_API_KEY_B.length() - 37);
        assertThat(environment.notifyNl.sentNotifications().stream()
                        .filter(sent -> sent.templateId().toString().equals(TestNmc.TEMPLATE_ID_B)))
                .isNotEmpty()
                .allSatisfy(sent -> assertThat(sent.serviceId()).hasToString(serviceB));
    }

    @Test
    void aPermanentFailureAtNotifyNlEndsNietBezorgbaar() {
        Accepted accepted = accept(token(), "conf-" + UUID.randomUUID(), NotifyNlSimulator.PERM_FAIL_ADDRESS);
        Snapshot end = awaitStatus(accepted.id(), "niet-bezorgbaar");
        assertThat(end.reden()).isEqualTo("onbereikbaar");
    }

    @Test
    void aTemporaryFailureIsResentOnceAndThenEndsNietBezorgbaar() {
        Accepted accepted = accept(token(), "conf-" + UUID.randomUUID(), NotifyNlSimulator.TEMP_FAIL_ADDRESS);
        Snapshot end = awaitStatus(accepted.id(), "niet-bezorgbaar");
        assertThat(end.version())
                .as("aangenomen, in-verzending, verzonden, resend, niet-bezorgbaar")
                .isEqualTo(5);
        assertThat(environment.notifyNl.sentNotifications().stream()
                        .filter(n -> NotifyNlSimulator.TEMP_FAIL_ADDRESS.equals(n.emailAddress()))
                        .count())
                .isGreaterThanOrEqualTo(2);
    }

    @Test
    void aTechnicalFailureWithoutCallbackIsFoundByReconciliationAndEndsTechnischMislukt() {
        Accepted accepted = accept(token(), "conf-" + UUID.randomUUID(), NotifyNlSimulator.NO_CALLBACK_ADDRESS);
        Snapshot end = awaitStatus(accepted.id(), "technisch-mislukt");
        assertThat(end.reden()).isEqualTo("technisch");
        assertThat(end.version())
                .as("aangenomen, in-verzending, verzonden, resend, technisch-mislukt")
                .isEqualTo(5);
    }

    @Test
    void aCentralisedNotificationTravelsToDefinitiefBezorgdAndEveryCallHasItsLdvRecordFirst() {
        Accepted accepted = acceptCentraal(token(), "conf-" + UUID.randomUUID(), ProfielserviceSimulator.KVK_DELIVERED);
        assertThat(accepted.status()).isEqualTo("aangenomen");

        Snapshot last = awaitStatus(accepted.id(), "definitief-bezorgd");
        assertThat(last.version()).isEqualTo(5);

        // The lookup and the send of this notification each carried a traceparent whose span the LDV store held
        // before the call reached the party: exactly one record per call, in the notification's trace.
        String traceId = TestDatabase.get()
                .query("SELECT trace_id FROM notificatie WHERE id = ?", accepted.id())
                .getFirst();
        List<TestLdv.Row> records = TestLdv.get().rows(traceId);
        assertThat(records)
                .extracting(TestLdv.Row::name)
                .containsExactly("nmc.profielservice.contactgegevens-opvragen", "nmc.notifynl.email-versturen");
        List<ProfielserviceSimulator.Call> lookups = environment.parties.profielservice.calls().stream()
                .filter(call -> call.traceparent() != null && call.traceparent().contains(traceId))
                .toList();
        assertThat(lookups).singleElement().satisfies(lookup -> {
            TestLdv.Row record = records.getFirst();
            assertThat(lookup.traceparent()).isEqualTo("00-" + traceId + "-" + record.spanId() + "-01");
            assertThat(record.storedAt().truncatedTo(java.time.temporal.ChronoUnit.MILLIS))
                    .as("stored before the lookup arrived")
                    .isBeforeOrEqualTo(lookup.receivedAt());
            assertThat(record.attribute("dpl.core.foreign_operation.fsc_transaction_id"))
                    .as("the lookup went through FSC: its transaction id")
                    .isEqualTo(lookup.fscTransactionId());
            assertThat(record.attribute("dpl.core.data_subject_id_type")).isEqualTo("KVK");
        });
        assertThat(TestLdv.get().rows())
                .noneMatch(r -> r.json().contains(ProfielserviceSimulator.KVK_DELIVERED)
                        || r.json().contains(ProfielserviceSimulator.DEV_EMAILADRES));
    }

    @Test
    void everyCallToNotifyNlAndTheProfielserviceHadItsRecordStoredFirst() {
        // after whatever the suite did so far in this JVM: every call, its record before it
        LdvRecords.Checked checked = LdvRecords.assertEveryCallRecordedFirst(
                environment.parties, List.of(ProfielserviceSimulator.DEV_EMAILADRES));
        System.out.println("LDV-CHECK happy path: " + checked);
    }

    @Test
    void aCentralisedPermanentFailureDeletesTheAddressThatBouncedAtTheProfielservice() {
        int before = environment.parties.profielservice.deletes().size();
        // A party of its own: the delete removes its only address, after which the Profielservice no longer knows it.
        String kvk = "7"
                + String.format(
                        "%07d", java.util.concurrent.ThreadLocalRandom.current().nextInt(10_000_000));
        environment.parties.profielservice.register(nl.overheid.moz.nmc.simulator.Party.kvk(kvk)
                .email(nl.overheid.moz.nmc.simulator.NotifyNlSimulator.PERM_FAIL_ADDRESS));
        Accepted accepted = acceptCentraal(token(), "conf-" + UUID.randomUUID(), kvk);
        Snapshot end = awaitStatus(accepted.id(), "niet-bezorgbaar");
        assertThat(end.reden()).isEqualTo("onbereikbaar");
        ProfielserviceSimulator.Delete delete = await(() -> environment.parties.profielservice.deletes().stream()
                .skip(before)
                .filter(d -> d.identificatieNummer().equals(kvk))
                .findFirst()
                .orElse(null));
        assertThat(delete.status())
                .as("the first delete of that contactgegeven")
                .isEqualTo(204);
    }

    @Test
    void aCentralisedNotificationForAPartyWithoutAnAddressEndsGeenContactgegevens() {
        for (String kvk : List.of(
                ProfielserviceSimulator.KVK_UNKNOWN,
                ProfielserviceSimulator.KVK_NO_EMAIL,
                ProfielserviceSimulator.KVK_VOORKEUR_ONLY)) {
            Accepted accepted = acceptCentraal(token(), "conf-" + UUID.randomUUID(), kvk);
            Snapshot end = awaitStatus(accepted.id(), "niet-bezorgbaar");
            assertThat(end.reden()).isEqualTo("geen-contactgegevens");
            assertThat(end.version()).isEqualTo(3);
        }
    }

    @Test
    void anotherDvCannotSeeTheNotification() {
        Accepted accepted = accept(token(), "conf-" + UUID.randomUUID(), "ontvanger@example.nl");
        assertThat(feedEvents(environment.token(TestNmc.DV_B)).stream()
                        .noneMatch(e ->
                                e.path("subject").asText().equals(accepted.id().toString())))
                .isTrue();
    }

    protected Snapshot awaitStatus(UUID id, String wanted) {
        return await(() -> {
            Snapshot snapshot = status(token(), id);
            return snapshot.status().equals(wanted) ? snapshot : null;
        });
    }

    private List<JsonNode> eventsOf(UUID id) {
        return feedEvents(token()).stream()
                .filter(e -> e.path("subject").asText().equals(id.toString()))
                .toList();
    }

    private List<JsonNode> feedEvents(String token) {
        List<JsonNode> events = new ArrayList<>();
        String cursor = null;
        while (true) {
            Page page = feed(token, cursor);
            events.addAll(page.events());
            if (page.events().isEmpty()) {
                return events;
            }
            cursor = page.cursor();
        }
    }

    private static <T> T await(Supplier<T> probe) {
        Instant deadline = Instant.now().plus(PATIENCE);
        while (Instant.now().isBefore(deadline)) {
            T value = probe.get();
            if (value != null) {
                return value;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        throw new AssertionError("not reached within " + PATIENCE);
    }
}
