package nl.overheid.moz.nmc.conformance;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.client.MappingBuilder;
import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.http.Fault;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import nl.overheid.moz.nmc.process.NmcProcess;
import nl.overheid.moz.nmc.simulator.NotifyNlSimulator;
import nl.overheid.moz.nmc.testing.TestDatabase;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A NotifyNL storm: while DVs submit, NotifyNL answers the NMC's calls in turn with a 500, a 429, a connection reset
 * after it accepted the e-mail, a time-out after it accepted the e-mail, and now and then a normal answer; its status
 * queries (the lookup by reference and reconciliation) with 500s, 429s and normal answers. A failure of NotifyNL is
 * never the notification's: no attempt ({@code poging}) may be consumed, no task counted as failed or parked, no
 * e-mail sent twice (an e-mail NotifyNL accepted behind a reset or a time-out is found by reference), and once the
 * storm is over everything reaches the status its recipient implies. The send budget the failed calls burned is
 * measured: a claim takes its token before the call, so every postponed send costs one token of its window.
 */
@Tag("faults")
class NotifyNlStormTest {

    private static final long SEED = Long.getLong("nmc.faults.seed", 20_261_201L);
    private static final int NOTIFICATIONS = 120;
    private static final double PER_SECOND = 20;
    /** The default send budget of a NotifyNL service a minute, and reconciliation's default share of it. */
    private static final int PER_MINUTE = 3000;

    private static final double RECONCILE_SHARE = 0.1;
    private static final Duration START = Duration.ofSeconds(90);
    /**
     * The storm lasts at least this long, and until every fault of the send call answered at least {@link #EACH}
     * calls, each fault of the lookup by reference three and each of the status query one (reconciliation asks only
     * about e-mails whose receipt is late, so it calls least).
     */
    private static final Duration STORM = Duration.ofSeconds(12);

    private static final int EACH = 10;
    private static final Map<String, Integer> AT_LEAST = Map.of(
            "send-0",
            EACH,
            "send-1",
            EACH,
            "send-2",
            EACH,
            "send-3",
            EACH,
            "lookup-0",
            3,
            "lookup-1",
            3,
            "status-0",
            1,
            "status-1",
            1);
    private static final String SEND = "/v2/notifications/email";

    @Test
    void aStormAtNotifyNlConsumesNoAttemptLosesNothingAndParksNothing() {
        long began = System.nanoTime();
        try (FaultRig rig = new FaultRig("notifynl-storm", TestDatabase.separate())) {
            // NotifyNL's default limit and reconciliation share (where they are configured differs by version).
            NmcProcess nmc = rig.nmc("nmc");
            nmc.start();
            nmc.awaitHealthy(START);

            storm(rig.parties.notifyNl);
            long stormStart = System.nanoTime();
            DvLoad load = new DvLoad(
                            SEED,
                            NOTIFICATIONS,
                            List.of(TestNmc.DV_A, TestNmc.DV_B),
                            DvLoad.MIXED,
                            0.1,
                            rig,
                            i -> nmc.baseUrl())
                    .start(PER_SECOND);
            List<Long> maxCounter = new ArrayList<>();
            List<Long> parked = new ArrayList<>();
            FaultRig.await(START, "a storm of " + STORM + " with every fault at least " + AT_LEAST, () -> {
                maxCounter.add(rig.maxFailures());
                parked.add(rig.count("SELECT count(*) FROM taak WHERE status = 'mislukt'"));
                Map<String, Long> faults = stormAnswers(rig.parties.notifyNl);
                return System.nanoTime() - stormStart > STORM.toNanos()
                        && AT_LEAST.entrySet().stream()
                                .allMatch(e -> faults.getOrDefault(e.getKey(), 0L) >= e.getValue());
            });
            Duration stormLasted = Duration.ofNanos(System.nanoTime() - stormStart);
            rig.parties.notifyNl.wireMock().getStubMappings().stream()
                    .filter(stub -> stub.getPriority() != null && stub.getPriority() == 1)
                    .toList()
                    .forEach(stub -> rig.parties.notifyNl.wireMock().removeStub(stub));
            Map<String, Long> faults = stormAnswers(rig.parties.notifyNl);

            load.awaitAccepted(START);
            Duration drained = rig.awaitAllTerminal(load, Duration.ofMinutes(3));
            assertThat(maxCounter)
                    .as("NMC-internal failure counts sampled during the storm")
                    .containsOnly(0L);
            assertThat(parked).as("parked tasks sampled during the storm").containsOnly(0L);
            rig.verify(load, nmc.baseUrl()); // among others: each notification after exactly the attempts it needs
            var duplicates = rig.duplicateSends();
            assertThat(duplicates)
                    .as("an e-mail NotifyNL accepted behind a reset or time-out is found by reference")
                    .isEmpty();

            // The budget: the tokens the claims took, against the attempts that reached NotifyNL.
            long sendTokens = tokensUsed(rig, "sending", PER_MINUTE - (int) Math.floor(PER_MINUTE * RECONCILE_SHARE));
            long reconcileTokens = tokensUsed(rig, "reconciling", (int) Math.floor(PER_MINUTE * RECONCILE_SHARE));
            long pogingen = rig.count("SELECT count(*) FROM poging");
            long failedSendCalls = faults.entrySet().stream()
                    .filter(e -> e.getKey().startsWith("send"))
                    .mapToLong(Map.Entry::getValue)
                    .sum();
            // Burned: tokens beyond the one each attempt needs. A 500 or 429 burns the token of its claim; a reset or
            // time-out after NotifyNL accepted burns nothing when the receipt comes before the retry (the receipt
            // completes the send task), else the token of the retry that looks it up by reference.
            long burned = sendTokens - pogingen;
            assertThat(burned)
                    .as("tokens burned by postponed sends: at most one per failed send call or lookup")
                    .isBetween(
                            0L,
                            failedSendCalls
                                    + faults.getOrDefault("lookup-0", 0L)
                                    + faults.getOrDefault("lookup-1", 0L));

            Map<String, Object> figures = new LinkedHashMap<>();
            figures.put("seed", SEED);
            figures.put("notifications", NOTIFICATIONS);
            figures.put("mix", FaultRig.mix(load));
            figures.put("storm", FaultRig.seconds(stormLasted));
            figures.put("stormAnswers", faults);
            figures.put("attempts", pogingen);
            figures.put("sendTokens", sendTokens);
            figures.put("burnedSendTokens", burned);
            figures.put(
                    "burnedPerNotification",
                    String.format(java.util.Locale.ROOT, "%.2f", burned / (double) NOTIFICATIONS));
            figures.put("reconcileTokens", reconcileTokens);
            figures.put("duplicateSends", duplicates.size());
            figures.put("drainAfterStorm", FaultRig.seconds(drained));
            figures.put("duration", FaultRig.seconds(Duration.ofNanos(System.nanoTime() - began)));
            FaultRig.report("notifynl-storm", figures);
        }
    }

    /**
     * Priority-1 stubs on top of the simulator: each endpoint cycles through its faults request by request (a WireMock
     * scenario per endpoint), with a normal answer in every cycle. The reset and the time-out come after NotifyNL
     * accepted the e-mail (its transformer ran), so the NMC cannot know whether it arrived.
     */
    private static void storm(NotifyNlSimulator notifyNl) {
        cycle(
                notifyNl,
                "send",
                () -> post(urlPathEqualTo(SEND)),
                List.of(
                        error(500, "Exception", "Internal server error"),
                        error(
                                429,
                                "RateLimitError",
                                "Exceeded rate limit for key type TEST of 3000 requests per 60 seconds"),
                        aResponse()
                                .withTransformers(NotifyNlSimulator.SEND_EMAIL_TRANSFORMER)
                                .withFault(Fault.CONNECTION_RESET_BY_PEER),
                        aResponse()
                                .withTransformers(NotifyNlSimulator.SEND_EMAIL_TRANSFORMER)
                                .withFixedDelay(3000),
                        aResponse().withTransformers(NotifyNlSimulator.SEND_EMAIL_TRANSFORMER)));
        cycle(
                notifyNl,
                "lookup",
                () -> get(urlPathEqualTo("/v2/notifications")),
                List.of(
                        error(500, "Exception", "Internal server error"),
                        error(
                                429,
                                "RateLimitError",
                                "Exceeded rate limit for key type TEST of 3000 requests per 60 seconds"),
                        aResponse().withTransformers(NotifyNlSimulator.LIST_NOTIFICATIONS_TRANSFORMER)));
        cycle(
                notifyNl,
                "status",
                () -> get(urlPathMatching("/v2/notifications/[^/]+")),
                List.of(
                        error(500, "Exception", "Internal server error"),
                        error(
                                429,
                                "RateLimitError",
                                "Exceeded rate limit for key type TEST of 3000 requests per 60 seconds"),
                        aResponse().withTransformers(NotifyNlSimulator.GET_NOTIFICATION_TRANSFORMER)));
    }

    private static ResponseDefinitionBuilder error(int status, String error, String message) {
        return aResponse()
                .withStatus(status)
                .withHeader("Content-Type", "application/json")
                .withBody(NotifyNlSimulator.errorBody(status, error, message));
    }

    private static void cycle(
            NotifyNlSimulator notifyNl,
            String name,
            Supplier<MappingBuilder> request,
            List<ResponseDefinitionBuilder> answers) {
        for (int i = 0; i < answers.size(); i++) {
            notifyNl.wireMock()
                    .stubFor(request.get()
                            .atPriority(1)
                            .withName(name + "-" + i)
                            .inScenario(name)
                            .whenScenarioStateIs(i == 0 ? Scenario.STARTED : name + "-" + i)
                            .willSetStateTo(i + 1 == answers.size() ? Scenario.STARTED : name + "-" + (i + 1))
                            .willReturn(answers.get(i)));
        }
    }

    /** Calls the storm answered with a fault, per stub: send-0..3, lookup-0..1, status-0..1 (the last of each is normal). */
    private static Map<String, Long> stormAnswers(NotifyNlSimulator notifyNl) {
        Map<String, Long> counts = new TreeMap<>();
        for (ServeEvent event : notifyNl.wireMock().getAllServeEvents()) {
            if (event.getStubMapping() != null && event.getStubMapping().getName() != null) {
                String name = event.getStubMapping().getName();
                boolean normal = name.equals("send-4") || name.equals("lookup-2") || name.equals("status-2");
                if (!normal) {
                    counts.merge(name, 1L, Long::sum);
                }
            }
        }
        return counts;
    }

    /** Tokens taken from the send budget's windows for one purpose ({@code standaard/<purpose>}), all windows. */
    private static long tokensUsed(FaultRig rig, String purpose, int capacity) {
        return rig
                .database
                .query("SELECT resterend FROM verzendbudget WHERE notify_service LIKE ?", "%/" + purpose)
                .stream()
                .mapToLong(remaining -> capacity - Long.parseLong(remaining))
                .sum();
    }
}
