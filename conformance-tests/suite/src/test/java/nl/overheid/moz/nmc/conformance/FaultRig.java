package nl.overheid.moz.nmc.conformance;

import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import nl.overheid.moz.nmc.process.NmcProcess;
import nl.overheid.moz.nmc.simulator.NotifyNlSimulator;
import nl.overheid.moz.nmc.testing.Http;
import nl.overheid.moz.nmc.testing.TestDatabase;
import nl.overheid.moz.nmc.testing.TestIam;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * What the fault tests share: a database, the simulators (in this JVM), a test IAM gateway, NMC instances as
 * processes of their own ({@link NmcProcess}), and the checks every fault test ends with. Times are short (a
 * two-second MEBV period, five-second leases) so that recovery paths run within a CI minute; every wait is a
 * bounded poll, never a fixed sleep.
 */
final class FaultRig implements AutoCloseable {

    static final Set<String> TERMINAL = Set.of(
            "definitief-bezorgd",
            "niet-bezorgbaar",
            "technisch-mislukt",
            "verlopen",
            "geannuleerd",
            "bezorgstatus-onbekend");

    /** Short enough to finish in CI, long enough that a slow 2-core machine does not hit them by accident. */
    private static final String FAULT_CONFIG = """
            lifecycle:
              mebv-period: PT2S
              callback-window: PT1S
              reconcile-steps: [PT1S, PT2S]
              reconcile-interval: PT2S
              notify-retention: PT10M
            engine:
              poll-interval: PT0.1S
              lease: PT5S
              control-interval: PT2S
              batch-size: 20
              backoff-base: PT0.5S
              backoff-max: PT4S
              shutdown-grace: PT10S
            notifynl:
              read-timeout: PT2S
            db:
              pool-size: 10
            """;

    final TestIam iam = new TestIam();
    final PersonalValues values = new PersonalValues();
    final Simulators parties;
    final TestDatabase database;
    final Path dir;
    private final List<NmcProcess> processes = new ArrayList<>();

    FaultRig(String name, TestDatabase database) {
        this.dir = Path.of("target", "fault-tests", name).toAbsolutePath();
        this.database = database;
        this.parties = new Simulators(Duration.ofMillis(200));
    }

    /**
     * An NMC instance as a process (not started yet). The first one listens on the port NotifyNL's receipts go
     * to; a later one on a port of its own. {@code notifyBaseUrl} lets instances reach the same simulator under
     * different host names, so its journal tells who called.
     */
    NmcProcess nmc(String name, String notifyBaseUrl, String extraYaml) {
        int port = processes.isEmpty() ? parties.nmcPort : Simulators.freePort();
        NmcProcess process = NmcProcess.builder(name, dir)
                .port(port)
                // Small and quick to start on a shared 2-core machine; C1 only is plenty for a test's load.
                .jvm("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1")
                .configYaml(configYaml(port, notifyBaseUrl, extraYaml))
                .build();
        processes.add(process);
        return process;
    }

    NmcProcess nmc(String name) {
        return nmc(name, parties.notifyNl.baseUrl(), "{}");
    }

    /** The test configuration, then the simulators' addresses, then the fault tests' times, then {@code extraYaml}. */
    String configYaml(int port, String notifyBaseUrl, String extraYaml) {
        Map<String, Object> merged = new LinkedHashMap<>();
        for (String layer : List.of(
                TestNmc.yaml(database, iam, notifyBaseUrl, notifyBaseUrl, true),
                parties.nmcConfig(),
                FAULT_CONFIG,
                "server:\n  port: " + port + "\n",
                extraYaml)) {
            merge(merged, new Yaml().load(layer));
        }
        DumperOptions options = new DumperOptions();
        options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        return new Yaml(options).dump(merged);
    }

    @SuppressWarnings("unchecked")
    private static void merge(Map<String, Object> into, Map<String, Object> layer) {
        if (layer == null) {
            return;
        }
        layer.forEach((key, value) -> {
            if (value instanceof Map<?, ?> map && into.get(key) instanceof Map<?, ?> existing) {
                Map<String, Object> copy = new LinkedHashMap<>((Map<String, Object>) existing);
                merge(copy, (Map<String, Object>) map);
                into.put(key, copy);
            } else {
                into.put(key, value);
            }
        });
    }

    // ---------------------------------------------------------------------------------------------------
    // Waiting and looking
    // ---------------------------------------------------------------------------------------------------

    static void pause(Duration duration) {
        try {
            Thread.sleep(duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Polls until {@code condition} holds; returns how long that took; fails after {@code timeout}. */
    static Duration await(Duration timeout, String what, BooleanSupplier condition) {
        long start = System.nanoTime();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - start > timeout.toNanos()) {
                throw new AssertionError("not within " + timeout + ": " + what);
            }
            pause(Duration.ofMillis(100));
        }
        return Duration.ofNanos(System.nanoTime() - start);
    }

    long count(String sql) {
        return Long.parseLong(database.query(sql, null).getFirst());
    }

    /** Waits until every notification of the load is in a terminal status; returns how long that took. */
    Duration awaitAllTerminal(DvLoad load, Duration timeout) {
        String terminal = TERMINAL.stream().map(s -> "'" + s + "'").collect(Collectors.joining(","));
        try {
            return await(
                    timeout,
                    "every accepted notification terminal",
                    () -> count("SELECT count(*) FROM notificatie WHERE status IN (" + terminal + ")")
                            >= load.submissions().size());
        } catch (AssertionError stuck) {
            AssertionError state =
                    new AssertionError(count("SELECT count(*) FROM notificatie") + " notification(s) for "
                            + load.submissions().size() + " accepted requests; still live: "
                            + database.query(
                                    "SELECT status || ': ' || count(*) FROM notificatie WHERE status NOT IN ("
                                            + terminal + ") GROUP BY status",
                                    null)
                            + "; of them without an open task: " + database.query("""
                    SELECT n.status || ': ' || count(*) FROM notificatie n
                     WHERE n.status NOT IN (%s)
                       AND NOT EXISTS (SELECT 1 FROM taak t WHERE t.notificatie = n.id AND t.status = 'open')
                     GROUP BY n.status
                    """.formatted(terminal), null)
                            + "; tasks (kind status due lease: count): " + database.query("""
                    SELECT t.soort || ' ' || t.status || ' ' || CASE WHEN t.due <= now() THEN 'due' ELSE 'later' END
                           || ' ' || CASE WHEN t.lease_tot IS NULL THEN 'free' WHEN t.lease_tot < now() THEN 'expired'
                                          ELSE 'leased' END || ': ' || count(*)
                      FROM taak t
                     GROUP BY t.soort, t.status, t.due <= now(), t.lease_tot IS NULL, t.lease_tot < now()
                    """, null));
            stuck.addSuppressed(state);
            processes.stream()
                    .filter(NmcProcess::alive)
                    .forEach(p -> stuck.addSuppressed(
                            new AssertionError("thread dump of " + p.name() + ": " + p.threadDump())));
            throw stuck;
        }
    }

    /**
     * Live notifications that nothing will move: no open task of any kind and no unprocessed receipt. One snapshot,
     * so the count is consistent; it must be zero at any moment, also right after a crash.
     */
    long stranded() {
        String terminal = TERMINAL.stream().map(s -> "'" + s + "'").collect(Collectors.joining(","));
        return count("""
                SELECT count(*) FROM notificatie n
                 WHERE n.status NOT IN (%s)
                   AND NOT EXISTS (SELECT 1 FROM taak t WHERE t.notificatie = n.id AND t.status = 'open')
                   AND NOT EXISTS (SELECT 1 FROM ontvangst o JOIN poging p ON p.id = o.poging
                                    WHERE p.notificatie = n.id AND o.verwerkt_op IS NULL)
                """.formatted(terminal));
    }

    /** The highest NMC-internal failure count of any task now. */
    long maxFailures() {
        return count("SELECT coalesce(max(pogingenteller), 0) FROM taak");
    }

    /** NotifyNL's e-mails by reference (the attempt id), where one reference was accepted more than once. */
    Map<String, List<NotifyNlSimulator.SentNotification>> duplicateSends() {
        return parties.notifyNl.sentNotifications().stream()
                .collect(Collectors.groupingBy(s -> String.valueOf(s.reference()), TreeMap::new, Collectors.toList()))
                .entrySet()
                .stream()
                .filter(e -> e.getValue().size() > 1)
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue, (a, b) -> a, TreeMap::new));
    }

    /**
     * A reference NotifyNL accepted twice is allowed only where the NMC could not know of the first e-mail: its
     * claim was lost (the instance died, so the lease expired) and the lookup by reference that every re-claim makes
     * before a new call did not find it, because NotifyNL stored it only after that lookup. So for each duplicate:
     * a kill lies between the two e-mails, and a lookup by that reference was made between the kill and the second
     * e-mail, no later than the first e-mail was stored. Without the lookup, or with a lookup that should have
     * found it, the duplicate is the NMC's fault.
     */
    void assertEveryDuplicateAllowed(
            Map<String, List<NotifyNlSimulator.SentNotification>> duplicates, List<Instant> kills) {
        if (duplicates.isEmpty()) {
            return;
        }
        List<LoggedRequest> lookups =
                parties.notifyNl.wireMock().findAll(getRequestedFor(urlPathEqualTo("/v2/notifications")));
        duplicates.forEach((reference, sends) -> {
            List<Instant> stored = sends.stream()
                    .map(NotifyNlSimulator.SentNotification::createdAt)
                    .sorted()
                    .toList();
            Instant first = stored.getFirst();
            Instant second = stored.get(1);
            assertThat(kills)
                    .as("reference " + reference + " accepted twice: a kill must lie between")
                    .anySatisfy(kill -> assertThat(kill).isBetween(first, second));
            Instant kill = kills.stream()
                    .filter(k -> !k.isBefore(first) && !k.isAfter(second))
                    .findFirst()
                    .orElseThrow();
            assertThat(lookups.stream()
                            .filter(r -> reference.equals(queryValue(r.getUrl(), "reference")))
                            .map(r -> r.getLoggedDate().toInstant()))
                    .as("reference " + reference + ": a lookup after the kill that could not yet see the first e-mail")
                    .anySatisfy(
                            at -> assertThat(at).isAfter(kill).isBefore(second).isBeforeOrEqualTo(first.plusMillis(1)));
        });
    }

    private static String queryValue(String url, String name) {
        int q = url.indexOf('?');
        if (q < 0) {
            return null;
        }
        for (String pair : url.substring(q + 1).split("&")) {
            if (pair.startsWith(name + "=")) {
                return URLDecoder.decode(pair.substring(name.length() + 1), StandardCharsets.UTF_8);
            }
        }
        return null;
    }

    // ---------------------------------------------------------------------------------------------------
    // The checks every fault test ends with
    // ---------------------------------------------------------------------------------------------------

    /** One notification as the database has it. */
    record Row(String status, int version, int pogingen) {}

    Map<String, Row> rows() {
        Map<String, Row> rows = new HashMap<>();
        for (String line : database.query("""
                SELECT n.id || ' ' || n.status || ' ' || n.versie || ' '
                       || (SELECT count(*) FROM poging p WHERE p.notificatie = n.id)
                  FROM notificatie n
                """, null)) {
            String[] f = line.split(" ");
            rows.put(f[0], new Row(f[1], Integer.parseInt(f[2]), Integer.parseInt(f[3])));
        }
        return rows;
    }

    /**
     * Everything the load was promised holds: one notification per request however often it was sent; each in the
     * final status its recipient implies, after exactly the attempts that outcome needs (none consumed by a
     * fault); the DV's feed holds volgnummers 1..versie once each for every notification; no task parked, no task
     * left but the erasures, no receipt unprocessed.
     */
    void verify(DvLoad load, String feedBaseUrl) {
        Map<String, Row> rows = rows();
        assertThat(load.submissions())
                .as("every request answered with exactly one id")
                .allSatisfy(s -> assertThat(s.ids).as(s.dvRef).hasSize(1));
        assertThat(load.submissions().stream()
                        .map(DvLoad.Submission::id)
                        .distinct()
                        .count())
                .as("distinct requests, distinct notifications")
                .isEqualTo(load.submissions().size());
        assertThat(rows).as("no notification beyond those the DVs asked for").hasSameSizeAs(load.submissions());

        Map<String, Long> wrong = new TreeMap<>();
        for (DvLoad.Submission s : load.submissions()) {
            Row row = rows.get(s.id().toString());
            assertThat(row).as("notification of " + s.dvRef).isNotNull();
            if (!row.status().equals(s.outcome.finalStatus) || row.pogingen() != s.outcome.pogingen) {
                wrong.merge(
                        s.outcome + " -> " + row.status() + " after " + row.pogingen() + " attempt(s)", 1L, Long::sum);
            }
        }
        assertThat(wrong)
                .as("outcomes other than the recipient implies (expected status and attempts)")
                .isEmpty();

        for (String dv : load.submissions().stream().map(s -> s.dv).distinct().toList()) {
            Map<String, List<Integer>> sequences = feedSequences(feedBaseUrl, dv);
            for (DvLoad.Submission s :
                    load.submissions().stream().filter(x -> x.dv.equals(dv)).toList()) {
                int version = rows.get(s.id().toString()).version();
                List<Integer> expected = java.util.stream.IntStream.rangeClosed(1, version)
                        .boxed()
                        .toList();
                // Once each, in any order: the feed orders by commit, not per notification (design §8, ARCHITECTURE
                // "the feed does not order the events of one notification"; a batch whose transaction began before
                // another one on the same notification commits its event after it with the smaller transaction id).
                assertThat(sequences.get(s.id().toString()))
                        .as("the feed's volgnummers of " + s.id())
                        .containsExactlyInAnyOrderElementsOf(expected);
            }
            assertThat(sequences)
                    .as("no events of other notifications in " + dv + "'s feed")
                    .hasSize((int) load.submissions().stream()
                            .filter(x -> x.dv.equals(dv))
                            .count());
        }

        assertThat(database.query(
                        "SELECT soort || ' ' || status FROM taak WHERE soort <> 'wissen' OR status <> 'open'", null))
                .as("no task left but the erasures, none parked")
                .isEmpty();
        assertThat(count("SELECT count(*) FROM ontvangst WHERE verwerkt_op IS NULL"))
                .as("unprocessed receipts")
                .isZero();
    }

    /** The DV's whole feed from the start: volgnummers per subject in the order read; an event id twice fails. */
    Map<String, List<Integer>> feedSequences(String baseUrl, String dv) {
        Http http = new Http(baseUrl);
        String token = iam.token(dv);
        Map<String, List<Integer>> sequences = new HashMap<>();
        Set<String> eventIds = new java.util.HashSet<>();
        String cursor = null;
        while (true) {
            Http.Response page = http.get(
                    "/api/nmc/v1/notificaties/wijzigingen?limit=1000" + (cursor == null ? "" : "&cursor=" + cursor),
                    token);
            assertThat(page.status()).as(page.body()).isEqualTo(200);
            JsonNode body = page.json();
            if (body.path("events").isEmpty()) {
                return sequences;
            }
            for (JsonNode event : body.path("events")) {
                assertThat(eventIds.add(event.path("id").asText()))
                        .as("event " + event.path("id") + " once")
                        .isTrue();
                sequences
                        .computeIfAbsent(event.path("subject").asText(), s -> new ArrayList<>())
                        .add(Integer.parseInt(event.path("sequence").asText()));
            }
            cursor = body.path("cursor").asText();
        }
    }

    /** Outcome counts of a load, for the report line. */
    static String mix(DvLoad load) {
        return load.submissions().stream()
                .collect(Collectors.groupingBy(s -> s.outcome, TreeMap::new, Collectors.counting()))
                .toString();
    }

    /** Prints one report line (the figures conformance-tests/TESTING.md quotes). */
    static void report(String test, Map<String, Object> figures) {
        System.out.println("FAULTS " + test + ": "
                + figures.entrySet().stream()
                        .map(e -> e.getKey() + "=" + e.getValue())
                        .collect(Collectors.joining(" ")));
    }

    static String seconds(Duration duration) {
        return String.format(java.util.Locale.ROOT, "%.1fs", duration.toMillis() / 1000.0);
    }

    @Override
    public void close() {
        processes.forEach(NmcProcess::close);
        parties.close();
    }
}
