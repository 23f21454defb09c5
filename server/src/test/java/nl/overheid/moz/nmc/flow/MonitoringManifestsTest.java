package nl.overheid.moz.nmc.flow;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import nl.overheid.moz.nmc.testing.Http;
import nl.overheid.moz.nmc.testing.ManualRunner;
import nl.overheid.moz.nmc.testing.PrometheusText;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.Test;

/**
 * The alert rules ({@code server/deploy/monitoring.yaml}) and the Grafana dashboard ({@code server/deploy/dashboard.yaml})
 * query only metrics a running NMC exports: after some traffic (a notification delivered, one parked for NotifyNL's
 * setup, a problem answered, a DV with a webhook, the duties' rounds) every {@code nmc_} name in their expressions
 * must be a sample of its {@code /observe/metrics} — so a renamed metric breaks the build, not the night shift. Names
 * that are not the NMC's (the scrape's {@code up}, kube-state-metrics) are named here. Every alert has a
 * {@code for}, a severity and a runbook that is a section of {@code server/OPERATIONS.md}.
 */
class MonitoringManifestsTest extends LifecycleTestBase {

    private static final Path DEPLOY = (Path.of("")
                            .toAbsolutePath()
                            .getFileName()
                            .toString()
                            .equals("server")
                    ? Path.of("").toAbsolutePath()
                    : Path.of("server").toAbsolutePath())
            .resolve("deploy");
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    /** Metrics of Prometheus itself and of kube-state-metrics that the rules use. */
    private static final Set<String> NOT_THE_NMCS = Set.of("up", "kube_pod_status_ready");

    private static final Pattern NMC_NAME = Pattern.compile("\\bnmc_[a-z0-9_]+");
    /** A selector's metric name: a name right before {@code {} (PromQL has no other use for that). */
    private static final Pattern SELECTED = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)\\{");

    @Test
    void everyMetricTheAlertsAndTheDashboardQueryIsOneTheNmcExports() throws IOException {
        List<String> expressions = new ArrayList<>(alertExpressions());
        List<String> dashboard = dashboardExpressions();
        assertThat(expressions).as("the alert rules").hasSizeGreaterThan(15);
        assertThat(dashboard).as("the dashboard's queries").hasSizeGreaterThan(20);
        expressions.addAll(dashboard);

        Set<String> queried = new TreeSet<>();
        for (String expression : expressions) {
            Matcher nmc = NMC_NAME.matcher(expression);
            while (nmc.find()) {
                queried.add(nmc.group());
            }
            Matcher selected = SELECTED.matcher(expression);
            while (selected.find()) {
                String name = selected.group(1);
                assertThat(name.startsWith("nmc_") || NOT_THE_NMCS.contains(name))
                        .as("%s in %s is neither the NMC's nor a known metric of the platform", name, expression)
                        .isTrue();
            }
        }
        assertThat(queried).hasSizeGreaterThan(30);

        Set<String> exported = exportedAfterTraffic();
        assertThat(queried.stream().filter(name -> !exported.contains(name)).toList())
                .as("metrics the alerts or the dashboard query that the NMC does not export")
                .isEmpty();
    }

    @Test
    void everyAlertHasAForASeverityAndARunbookSectionOfTheOperationsDocument() throws IOException {
        Set<String> anchors = Files.readAllLines(DEPLOY.resolveSibling("OPERATIONS.md")).stream()
                .filter(line -> line.startsWith("#"))
                .map(line -> line.replaceFirst("^#+\\s*", "")
                        .toLowerCase(Locale.ROOT)
                        .replaceAll("[^a-z0-9 -]", "")
                        .replace(' ', '-'))
                .collect(Collectors.toSet());
        List<JsonNode> alerts = alerts();
        assertThat(alerts).hasSizeGreaterThan(15);
        Set<String> names = new TreeSet<>();
        for (JsonNode alert : alerts) {
            String name = alert.path("alert").asText();
            assertThat(names.add(name)).as("one alert named %s", name).isTrue();
            assertThat(alert.path("for").asText()).as("%s: for", name).matches("\\d+[smh]");
            assertThat(alert.path("labels").path("severity").asText())
                    .as("%s: severity", name)
                    .isIn("critical", "warning", "info");
            String runbook = alert.path("annotations").path("runbook_url").asText();
            assertThat(runbook).as("%s: runbook_url", name).contains("/server/OPERATIONS.md#");
            String anchor = runbook.substring(runbook.indexOf('#') + 1);
            assertThat(anchor).as("%s: its section is named after it", name).isEqualTo(name.toLowerCase(Locale.ROOT));
            assertThat(anchors).as("%s: a section of OPERATIONS.md", name).contains(anchor);
        }
    }

    /** Traffic that makes the NMC register what only appears once something happened; then its metric names. */
    private Set<String> exportedAfterTraffic() {
        // duty rounds every half second once the runner is started below
        restartWithConfig("engine:\n  control-interval: PT0.5S\n");
        sql("UPDATE dienstverlener SET webhook_url = 'http://127.0.0.1:9/webhook' WHERE oin = '" + TestNmc.DV_A + "'");
        UUID delivered = accept("METRICS-1", Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        receipt(delivered, 1, "delivered");
        assertThat(status(delivered)).startsWith("bezorgd");
        assertThat(http.get("/api/nmc/v1/notificaties/" + UUID.randomUUID(), tokenA())
                        .status())
                .isEqualTo(404);

        notify.refuse(400, "BadRequestError", "Template not found");
        accept("METRICS-2", Map.of());
        for (int round = 1; round <= 5; round++) {
            ManualRunner.of(nmc).runWorkersOnce();
            clock.advance(Duration.ofMinutes(20));
        }
        ManualRunner.of(nmc).runDutiesOnce();
        // the duty runner itself (not rounds by hand), as in production: it counts the rounds; stopped with the NMC
        nmc.engine().duties().start();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        Set<String> exported;
        do {
            Http.Response response = http.get("/observe/metrics", null);
            assertThat(response.status()).isEqualTo(200);
            exported = PrometheusText.parse(response.body()).samples().stream()
                    .map(PrometheusText.Sample::name)
                    .collect(Collectors.toSet());
        } while (!exported.containsAll(Set.of("nmc_duty_last_completed_seconds", "nmc_webhook_paused"))
                && System.nanoTime() < deadline
                && pause());
        return exported;
    }

    private static boolean pause() {
        try {
            Thread.sleep(200);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static List<JsonNode> alerts() throws IOException {
        List<JsonNode> alerts = new ArrayList<>();
        try (var docs = YAML.readerFor(JsonNode.class)
                .readValues(DEPLOY.resolve("monitoring.yaml").toFile())) {
            while (docs.hasNext()) {
                JsonNode doc = (JsonNode) docs.next();
                if (doc.path("kind").asText().equals("PrometheusRule")) {
                    doc.path("spec")
                            .path("groups")
                            .forEach(group -> group.path("rules").forEach(alerts::add));
                }
            }
        }
        return alerts;
    }

    private static List<String> alertExpressions() throws IOException {
        return alerts().stream().map(rule -> rule.path("expr").asText()).toList();
    }

    /** Every panel's queries and the templating's (the DV variable). */
    private static List<String> dashboardExpressions() throws IOException {
        JsonNode configMap = YAML.readTree(DEPLOY.resolve("dashboard.yaml").toFile());
        JsonNode dashboard = new ObjectMapper()
                .readTree(configMap.path("data").path("nmc.json").asText());
        List<String> expressions = new ArrayList<>();
        dashboard
                .path("panels")
                .forEach(panel -> panel.path("targets")
                        .forEach(target -> expressions.add(target.path("expr").asText())));
        dashboard.path("templating").path("list").forEach(variable -> {
            if (variable.path("query").has("query")) {
                expressions.add(variable.path("query").path("query").asText());
            }
        });
        return expressions;
    }
}
