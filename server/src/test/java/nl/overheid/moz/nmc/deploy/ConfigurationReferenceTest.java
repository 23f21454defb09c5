package nl.overheid.moz.nmc.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import nl.overheid.moz.nmc.Nmc;
import nl.overheid.moz.nmc.testing.ManualRunner;
import nl.overheid.moz.nmc.testing.MutableClock;
import nl.overheid.moz.nmc.testing.ReadKeys;
import nl.overheid.moz.nmc.testing.TestDatabase;
import nl.overheid.moz.nmc.testing.TestIam;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code server/CONFIGURATION.md} against the code and the manifests, so none can drift: the keys a started server
 * reads (recorded by a wrapping configuration) are exactly the documented ones, documented defaults equal the packaged
 * {@code application.yaml}, and every environment variable of {@code server/deploy/} names a documented key; the
 * manifests' probes, replicas, budget, synchronous commit and pooling mode are what server/OPERATIONS.md promises.
 */
class ConfigurationReferenceTest {

    private static final Path SERVER =
            Path.of("").toAbsolutePath().getFileName().toString().equals("server")
                    ? Path.of("").toAbsolutePath()
                    : Path.of("server").toAbsolutePath();
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    /** Variables of the manifests that are not configuration keys. */
    private static final Set<String> NOT_KEYS =
            Set.of("NMC_CONFIG", "NMC_SECRETS_DIR", "NMC_LOG_FORMAT", "JAVA_TOOL_OPTIONS");

    private static Map<String, String> documented;

    @BeforeAll
    static void readReference() throws IOException {
        documented = new LinkedHashMap<>();
        Matcher row = Pattern.compile("(?m)^\\| `([a-z0-9.\\-]+)` \\| ([^|]*) \\|")
                .matcher(Files.readString(SERVER.resolve("CONFIGURATION.md")));
        while (row.find()) {
            assertThat(documented.put(row.group(1), row.group(2).trim()))
                    .as("documented twice: " + row.group(1))
                    .isNull();
        }
        assertThat(documented).hasSizeGreaterThan(50);
    }

    /** A key as the reference names it: numbered versions and Helidon's own server settings folded. */
    private static String normalise(String key) {
        String folded = key.replaceAll("\\.\\d+(\\..*)?$", "")
                .replaceAll("^notifynl\\.services\\..*$", "notifynl.services"); // one entry per service name
        return folded.startsWith("server.") && !documented.containsKey(folded) ? "server.*" : folded;
    }

    @Test
    void theKeysTheServerReadsAreExactlyTheDocumentedOnes() {
        ReadKeys read = new ReadKeys();
        try (Nmc nmc = Nmc.start(
                read.wrap(TestNmc.config(TestDatabase.get(), new TestIam(), "http://127.0.0.1:9", false)),
                MutableClock.startingNow())) {
            ManualRunner.of(nmc).runDutiesOnce();
        }
        Set<String> readKeys = read.keys().stream()
                // Helidon maps some of its server nodes in one call (server.connection-options): that reads the
                // documented keys below them
                .flatMap(key -> java.util.stream.Stream.concat(
                        java.util.stream.Stream.of(key),
                        key.startsWith("server.")
                                ? documented.keySet().stream().filter(d -> d.startsWith(key + "."))
                                : java.util.stream.Stream.empty()))
                .map(ConfigurationReferenceTest::normalise)
                .filter(key -> !key.equals("server.*"))
                .collect(Collectors.toCollection(TreeSet::new));
        Set<String> undocumented = new TreeSet<>(readKeys);
        undocumented.removeAll(documented.keySet());
        Set<String> neverRead = new TreeSet<>(documented.keySet());
        neverRead.removeAll(readKeys);
        assertThat(undocumented)
                .as("read by the server but not in CONFIGURATION.md")
                .isEmpty();
        assertThat(neverRead).as("in CONFIGURATION.md but never read").isEmpty();
    }

    /** The packaged {@code server} section as Helidon binds it: Helidon ignores a misspelt key without a word. */
    @Test
    void helidonBindsThePackagedServerSettings() {
        io.helidon.config.Config config =
                io.helidon.config.Config.just(io.helidon.config.ConfigSources.classpath("application.yaml"));
        io.helidon.webserver.WebServerConfig server = io.helidon.webserver.WebServerConfig.create(config.get("server"));

        assertThat(server.connectionOptions().tcpNoDelay()).as("Nagle off").isTrue();
        // the map Helidon sets on every accepted connection (its listener's receive-buffer-size is bound, not applied)
        assertThat(server.connectionOptions().socketOptions())
                .as("each connection's receive buffer fixed, so a refused caller cannot fill megabytes of it")
                .containsEntry(java.net.StandardSocketOptions.SO_RCVBUF, 262_144);
        assertThat(server.maxPayloadSize()).isEqualTo(5_242_880L);
    }

    @Test
    void theDocumentedDefaultsAreThePackagedOnes() throws IOException {
        JsonNode packaged = YAML.readTree(
                SERVER.resolve("src/main/resources/application.yaml").toFile());
        Map<String, String> flat = new LinkedHashMap<>();
        flatten("", packaged, flat);
        assertThat(flat).isNotEmpty();
        flat.forEach((key, value) -> {
            assertThat(documented).as("packaged but not documented: " + key).containsKey(key);
            assertThat(documented.get(key).replace("`", "")).as(key).isEqualTo(value);
        });
    }

    private static void flatten(String prefix, JsonNode node, Map<String, String> flat) {
        if (node.isObject()) {
            node.properties()
                    .forEach(e ->
                            flatten(prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey(), e.getValue(), flat));
        } else if (node.isArray()) {
            List<String> items = new ArrayList<>();
            node.forEach(item -> items.add(item.asText()));
            flat.put(prefix, "[" + String.join(", ", items) + "]");
        } else {
            flat.put(prefix, node.asText());
        }
    }

    private static List<JsonNode> manifests() throws IOException {
        List<JsonNode> all = new ArrayList<>();
        try (var files = Files.list(SERVER.resolve("deploy"))) {
            for (Path file :
                    files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                try (var docs = YAML.readerFor(JsonNode.class).readValues(file.toFile())) {
                    while (docs.hasNext()) {
                        all.add((JsonNode) docs.next());
                    }
                }
            }
        }
        return all;
    }

    private static JsonNode kind(List<JsonNode> manifests, String kind) {
        List<JsonNode> found = manifests.stream()
                .filter(m -> m.path("kind").asText().equals(kind))
                .toList();
        assertThat(found).as(kind).hasSize(1);
        return found.getFirst();
    }

    @Test
    void everyEnvironmentVariableOfTheManifestsNamesADocumentedKey() throws IOException {
        List<String> names = new ArrayList<>();
        for (JsonNode manifest : manifests()) {
            for (JsonNode container :
                    manifest.path("spec").path("template").path("spec").path("containers")) {
                container.path("env").forEach(env -> names.add(env.path("name").asText()));
            }
        }
        assertThat(names).hasSizeGreaterThan(10);
        for (String name : names) {
            if (NOT_KEYS.contains(name)) {
                continue;
            }
            String key = name.replace("_dash_", "-").replace('_', '.').toLowerCase(Locale.ROOT);
            assertThat(documented).as(name + " is " + key).containsKey(normalise(key));
        }
    }

    /**
     * The keys and passwords reach the pods as files of NMC_SECRETS_DIR (review of the privileges, L7), each named for
     * the key it sets; no secret is an environment variable any more.
     */
    @Test
    void everySecretReachesThePodsAsAFileNamedForADocumentedKey() throws IOException {
        int files = 0;
        for (JsonNode manifest : manifests()) {
            JsonNode pod = manifest.path("spec").path("template").path("spec");
            for (JsonNode container : pod.path("containers")) {
                assertThat(container.path("env").findValues("secretKeyRef"))
                        .as(manifest.path("metadata").path("name").asText() + ": no secret in the environment")
                        .isEmpty();
            }
            for (JsonNode volume : pod.path("volumes")) {
                if (!volume.path("name").asText().equals("secrets")) {
                    continue;
                }
                for (JsonNode item : volume.findValues("items")) {
                    for (JsonNode file : item) {
                        String key = file.path("path").asText();
                        assertThat(documented).as(key).containsKey(normalise(key));
                        files++;
                    }
                }
                assertThat(volume.toString())
                        .as("readable by the NMC's group only")
                        .contains("\"defaultMode\":288");
            }
        }
        assertThat(files).as("the NMC's secrets and the migration's").isGreaterThanOrEqualTo(16);
    }

    @Test
    void theManifestsKeepTheOperationalPromises() throws IOException {
        List<JsonNode> manifests = manifests();
        JsonNode deployment = kind(manifests, "Deployment");
        assertThat(deployment.path("spec").path("replicas").asInt()).isGreaterThanOrEqualTo(2);
        JsonNode pod = deployment.path("spec").path("template").path("spec");
        assertThat(pod.path("securityContext").path("runAsNonRoot").asBoolean()).isTrue();
        JsonNode container = pod.path("containers").get(0);
        assertThat(container.path("readinessProbe").path("httpGet").path("path").asText())
                .isEqualTo("/observe/health/ready");
        assertThat(container.path("livenessProbe").path("httpGet").path("path").asText())
                .isEqualTo("/observe/health/live");
        assertThat(container.path("ports").get(0).path("containerPort").asText())
                .isEqualTo(documented.get("server.port").replace("`", ""));
        JsonNode budget = kind(manifests, "PodDisruptionBudget");
        assertThat(budget.path("spec").path("selector"))
                .isEqualTo(deployment.path("spec").path("selector"));
        assertThat(budget.path("spec").path("minAvailable").asInt())
                .isBetween(1, deployment.path("spec").path("replicas").asInt() - 1);
        JsonNode cluster = kind(manifests, "Cluster");
        assertThat(cluster.path("spec").path("instances").asInt())
                .as("a primary and two standbys")
                .isEqualTo(3);
        JsonNode synchronous = cluster.path("spec").path("postgresql").path("synchronous");
        assertThat(synchronous.path("method").asText()).isEqualTo("any");
        assertThat(synchronous.path("number").asInt()).isEqualTo(1);
        JsonNode pooler = kind(manifests, "Pooler");
        assertThat(pooler.path("spec").path("pgbouncer").path("poolMode").asText())
                .isEqualTo("transaction");
        assertThat(container.path("env").findValuesAsText("name")).contains("DB_SESSION_dash_OPTIONS");
        JsonNode job = kind(manifests, "Job");
        List<String> command = new ArrayList<>();
        job.path("spec")
                .path("template")
                .path("spec")
                .path("containers")
                .get(0)
                .path("command")
                .forEach(part -> command.add(part.asText()));
        assertThat(command).contains("nl.overheid.moz.nmc.Migrate");
        assertThat(nl.overheid.moz.nmc.Migrate.class.getName()).isEqualTo(command.getLast());
    }

    @Test
    void theManagementPortIsProbedAndScrapedButNeitherServedByTheServiceNorTheIngress() throws IOException {
        List<JsonNode> manifests = manifests();
        JsonNode deployment = kind(manifests, "Deployment");
        JsonNode container = deployment
                .path("spec")
                .path("template")
                .path("spec")
                .path("containers")
                .get(0);
        Map<String, String> ports = new LinkedHashMap<>();
        container
                .path("ports")
                .forEach(port -> ports.put(
                        port.path("name").asText(), port.path("containerPort").asText()));
        assertThat(ports)
                .containsEntry("http", documented.get("server.port").replace("`", ""))
                .containsEntry("management", documented.get("observe.port").replace("`", ""));
        for (String probe : List.of("startupProbe", "readinessProbe", "livenessProbe")) {
            assertThat(container.path(probe).path("httpGet").path("port").asText())
                    .as(probe)
                    .isEqualTo("management");
        }
        assertThat(deployment
                        .path("spec")
                        .path("template")
                        .path("metadata")
                        .path("annotations")
                        .path("prometheus.io/port")
                        .asText())
                .isEqualTo(ports.get("management"));
        JsonNode service = kind(manifests, "Service");
        service.path("spec")
                .path("ports")
                .forEach(port -> assertThat(port.path("targetPort").asText())
                        .as("the Service exposes no management port")
                        .isIn("http", ports.get("http")));
        kind(manifests, "Ingress")
                .findValues("backend")
                .forEach(backend -> assertThat(backend.path("service")
                                .path("port")
                                .path("name")
                                .asText())
                        .isEqualTo("http"));
        kind(manifests, "Ingress")
                .findValuesAsText("path")
                .forEach(path -> assertThat(path).doesNotStartWith("/observe"));
    }

    /**
     * ingress-nginx's default body limit (1 MB) would refuse a maximal bulk call before the NMC sees it, and without
     * request buffering a client sending its head or body slowly would hold the NMC's connection, which Helidon 4.5
     * never times out after the request line.
     */
    @Test
    void theIngressTakesAMaximalBulkBodyAndHandsTheNmcOnlyWholeRequests() throws IOException {
        JsonNode annotations = kind(manifests(), "Ingress").path("metadata").path("annotations");
        String size =
                annotations.path("nginx.ingress.kubernetes.io/proxy-body-size").asText();
        assertThat(size).matches("\\d+m");
        long bytes = Long.parseLong(size.substring(0, size.length() - 1)) * 1024 * 1024;
        assertThat(bytes)
                .as("the ingress's body limit is the web server's")
                .isEqualTo(
                        Long.parseLong(documented.get("server.max-payload-size").replace("`", "")))
                .isGreaterThan(Long.parseLong(
                        documented.get("http.max-bulk-body-bytes").replace("`", "")));
        assertThat(annotations
                        .path("nginx.ingress.kubernetes.io/proxy-request-buffering")
                        .asText())
                .isEqualTo("on");
    }

    @Test
    void everyPodRunsLeastPrivilegedAndTalksTlsToPostgres() throws IOException {
        List<JsonNode> manifests = manifests();
        for (String kind : List.of("Deployment", "Job")) {
            JsonNode pod = kind(manifests, kind).path("spec").path("template").path("spec");
            assertThat(pod.path("automountServiceAccountToken").isBoolean()
                            && !pod.path("automountServiceAccountToken").asBoolean())
                    .as(kind + ": no service-account token")
                    .isTrue();
            assertThat(pod.path("securityContext").path("runAsNonRoot").asBoolean())
                    .as(kind)
                    .isTrue();
            assertThat(pod.path("securityContext")
                            .path("seccompProfile")
                            .path("type")
                            .asText())
                    .as(kind)
                    .isEqualTo("RuntimeDefault");
            Map<String, JsonNode> volumes = new LinkedHashMap<>();
            pod.path("volumes")
                    .forEach(volume -> volumes.put(volume.path("name").asText(), volume));
            for (JsonNode container : pod.path("containers")) {
                JsonNode security = container.path("securityContext");
                assertThat(security.path("readOnlyRootFilesystem").asBoolean())
                        .as(kind)
                        .isTrue();
                assertThat(security.path("allowPrivilegeEscalation").isBoolean()
                                && !security.path("allowPrivilegeEscalation").asBoolean())
                        .as(kind)
                        .isTrue();
                assertThat(security.path("capabilities").path("drop").get(0).asText())
                        .as(kind)
                        .isEqualTo("ALL");
                assertThat(container
                                .path("resources")
                                .path("requests")
                                .path("memory")
                                .isMissingNode())
                        .as(kind)
                        .isFalse();
                assertThat(container
                                .path("resources")
                                .path("limits")
                                .path("memory")
                                .isMissingNode())
                        .as(kind)
                        .isFalse();
                String tmp = null;
                for (JsonNode mount : container.path("volumeMounts")) {
                    if (mount.path("mountPath").asText().equals("/tmp")) {
                        tmp = mount.path("name").asText();
                    }
                }
                assertThat(tmp).as(kind + ": /tmp mounted").isNotNull();
                assertThat(volumes.get(tmp).has("emptyDir"))
                        .as(kind + ": /tmp an emptyDir")
                        .isTrue();
                String url = "";
                for (JsonNode env : container.path("env")) {
                    if (env.path("name").asText().equals("DB_URL")) {
                        url = env.path("value").asText();
                    }
                }
                assertThat(url).as(kind).contains("sslmode=verify-full");
                // verify-full checks the host against the server certificate, which CloudNativePG makes for the
                // cluster's own services and the names the Cluster adds (the Pooler serves the same certificate)
                String host =
                        java.net.URI.create(url.substring("jdbc:".length())).getHost();
                java.util.Set<String> certified = new java.util.HashSet<>();
                String clusterName =
                        kind(manifests, "Cluster").path("metadata").path("name").asText();
                for (String service : List.of("-rw", "-r", "-ro")) {
                    certified.add(clusterName + service);
                }
                kind(manifests, "Cluster")
                        .path("spec")
                        .path("certificates")
                        .path("serverAltDNSNames")
                        .forEach(name -> certified.add(name.asText()));
                assertThat(certified)
                        .as(kind + ": " + host + " in the server certificate")
                        .contains(host);
            }
        }
        // the NMC's login keeps nmc_runtime: a managed role's memberships are reconciled to its inRoles
        JsonNode cluster = kind(manifests, "Cluster");
        JsonNode login = null;
        for (JsonNode role : cluster.path("spec").path("managed").path("roles")) {
            if (role.path("passwordSecret").path("name").asText().equals("nmc-db-app")) {
                login = role;
            }
        }
        assertThat(login).as("the NMC's login among the managed roles").isNotNull();
        assertThat(login.path("inRoles").toString()).isEqualTo("[\"nmc_runtime\"]");
        List<JsonNode> policies = manifests.stream()
                .filter(m -> m.path("kind").asText().equals("NetworkPolicy"))
                .toList();
        assertThat(policies.stream()
                        .flatMap(p -> java.util.stream.StreamSupport.stream(
                                p.path("spec").path("policyTypes").spliterator(), false))
                        .map(JsonNode::asText))
                .contains("Ingress", "Egress");
        java.util.function.Function<String, JsonNode> policy = name -> policies.stream()
                .filter(p -> p.path("metadata").path("name").asText().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no NetworkPolicy " + name));
        JsonNode egress = policy.apply("nmc-egress");
        assertThat(egress.findValuesAsText("cidr")).containsExactly("0.0.0.0/0", "::/0");
        assertThat(egress.findValues("except").get(0).toString())
                .as("no egress into private ranges")
                .contains("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16");
        assertThat(egress.findValues("except").get(1).toString())
                .as("nor into IPv6's private ranges or the prefixes that lead to IPv4, as PublicTargets refuses")
                .contains("fc00::/7", "fe80::/10", "::/80", "64:ff9b::/32", "2002::/16", "2001::/32");

        // every pod of the deployment is selected by an ingress policy (review of the privileges, L5); the migration
        // Job, which holds the owner's credentials, admits nothing and reaches only DNS and the database
        for (String selector : List.of(
                "{\"app.kubernetes.io/name\":\"nmc\"}",
                "{\"app.kubernetes.io/name\":\"nmc-migrate\"}",
                "{\"cnpg.io/cluster\":\"nmc-db\",\"cnpg.io/podRole\":\"instance\"}",
                "{\"cnpg.io/poolerName\":\"nmc-db-pooler-rw\"}")) {
            assertThat(policies).as("an ingress policy selects " + selector).anySatisfy(p -> {
                assertThat(p.path("spec")
                                .path("podSelector")
                                .path("matchLabels")
                                .toString())
                        .isEqualTo(selector);
                assertThat(p.path("spec").path("policyTypes").toString()).contains("Ingress");
            });
        }
        JsonNode migrate = policy.apply("nmc-migrate");
        assertThat(migrate.path("spec").path("ingress").size())
                .as("nothing reaches the Job")
                .isZero();
        assertThat(migrate.path("spec").path("egress").toString())
                .contains("kube-dns", "{\"cnpg.io/cluster\":\"nmc-db\",\"cnpg.io/podRole\":\"instance\"}", "5432")
                .doesNotContain("ipBlock");
        assertThat(policy.apply("nmc-db-ingress").path("spec").path("ingress").toString())
                .as("the Job and the NMC may reach the database")
                .contains("{\"app.kubernetes.io/name\":\"nmc-migrate\"}", "{\"app.kubernetes.io/name\":\"nmc\"}");
    }
}
