package nl.overheid.moz.nmc.ldv;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The ClickHouse store without a ClickHouse server: the only one these machines can install (Debian's 18.16) has no
 * {@code Map} type and cannot hold the wrapper's table. What is tested instead: the statements and the rows are the
 * wrapper's, character for character where its own tests pin them ({@code ClickHouseRepositoryTest} of
 * {@code MinBZK/moza-logboekdataverwerking}), and {@code client-v2} sends them over HTTP as a ClickHouse server
 * receives them (a WireMock stand-in that answers like one), with its errors classed.
 */
class ClickHouseSpanRepositoryTest {

    private final WireMockServer server = new WireMockServer(options().dynamicPort());

    @AfterEach
    void stop() {
        server.stop();
    }

    private static SpanRow root() {
        Map<String, String> attributes = new LinkedHashMap<>();
        attributes.put("attrKey", "attrValue");
        return new SpanRow(
                "myTraceId", "mySpanId", "OK", "myName", 0, 0, null, attributes, Map.of("resKey", "resValue"));
    }

    @Test
    void aRowIsTheWrappersJsonEachRowLineWithTheInvalidParentOfARootSpan() {
        // the payload the wrapper's own test pins for a root span
        assertThat(ClickHouseSpanRepository.jsonEachRow(List.of(root())))
                .isEqualTo("{\"traceId\":\"myTraceId\",\"spanId\":\"mySpanId\",\"status\":\"OK\","
                        + "\"name\":\"myName\",\"startTime\":0,\"endTime\":0,"
                        + "\"parentSpanId\":\"0000000000000000\","
                        + "\"attributes\":{\"attrKey\":\"attrValue\"},"
                        + "\"resource\":{\"resKey\":\"resValue\"}}\n");
        SpanRow child = new SpanRow(
                "4bf92f3577b34da6a3ce929d0e0e4736",
                "b7ad6b7169203331",
                "ERROR",
                "nmc.notifynl.email-versturen",
                1_764_584_130_123L,
                1_764_584_130_123L,
                "00f067aa0ba902b7",
                Map.of("exception.type", "http-503"),
                Map.of());
        assertThat(ClickHouseSpanRepository.jsonEachRow(List.of(root(), child)))
                .as("one line per row")
                .endsWith("\"parentSpanId\":\"00f067aa0ba902b7\",\"attributes\":{\"exception.type\":\"http-503\"},"
                        + "\"resource\":{}}\n")
                .contains("\"startTime\":1764584130123,\"endTime\":1764584130123");
    }

    @Test
    void theTableIsTheWrappersLayout() {
        String ddl = ClickHouseSpanRepository.createTableSql("ldv_logging.spans");
        assertThat(ddl)
                .startsWith("CREATE TABLE IF NOT EXISTS ldv_logging.spans (")
                .contains(
                        "traceId String,",
                        "spanId String,",
                        "status String,",
                        "name String,",
                        "startTime Int64,",
                        "endTime Int64,",
                        "parentSpanId String,",
                        "attributes Map(String, String),",
                        "resource Map(String, String)",
                        "ENGINE = MergeTree()",
                        "ORDER BY (traceId, spanId)");
        assertThat(ClickHouseSpanRepository.qualified("ldv_logging", "spans")).isEqualTo("ldv_logging.spans");
        assertThat(ClickHouseSpanRepository.qualified("ldv_logging", "other.spans"))
                .isEqualTo("other.spans");
    }

    private ClickHouseSpanRepository repository() {
        server.start();
        return new ClickHouseSpanRepository(new LdvSettings.ClickHouse(
                server.baseUrl(), "ldv", "ldv-secret", "ldv_logging", "spans", Duration.ofSeconds(2)));
    }

    private static String query(LoggedRequest request) {
        String url = request.getUrl();
        int at = url.indexOf("query=");
        return at < 0 ? "" : URLDecoder.decode(url.substring(at + 6).split("&")[0], StandardCharsets.UTF_8);
    }

    @Test
    void anInsertGoesOutAsTheWrappersJsonEachRowIntoTheQualifiedTable() {
        try (ClickHouseSpanRepository repository = repository()) {
            server.stubFor(any(anyUrl())
                    .willReturn(aResponse()
                            .withStatus(200)
                            .withHeader("X-ClickHouse-Summary", "{\"written_rows\":\"1\"}")
                            .withHeader("X-ClickHouse-Query-Id", "q-1")));

            repository.insert(List.of(root()));

            LoggedRequest request = server.getAllServeEvents().getFirst().getRequest();
            assertThat(request.getMethod().getName()).isEqualTo("POST");
            assertThat(query(request) + " " + request.getBodyAsString())
                    .contains("INSERT INTO ldv_logging.spans")
                    .contains("JSONEachRow");
            assertThat(request.getBodyAsString())
                    .as("the rows, one JSON object a line")
                    .contains(ClickHouseSpanRepository.jsonEachRow(List.of(root()))
                            .strip());
            assertThat(request.getHeader("Authorization"))
                    .as("the store's user")
                    .startsWith("Basic ");
        }
    }

    @Test
    void theTableIsCreatedWithTheWrappersStatement() {
        try (ClickHouseSpanRepository repository = repository()) {
            server.stubFor(any(anyUrl()).willReturn(aResponse().withStatus(200)));

            repository.ensureSchema();

            LoggedRequest request = server.getAllServeEvents().getFirst().getRequest();
            assertThat(query(request) + " " + request.getBodyAsString())
                    .contains("CREATE TABLE IF NOT EXISTS ldv_logging.spans")
                    .contains("attributes Map(String, String)");
        }
    }

    @Test
    void theServersErrorsAreClassedAndTheirMessagesNotKept() {
        try (ClickHouseSpanRepository repository = repository()) {
            server.stubFor(any(anyUrl())
                    .willReturn(aResponse()
                            .withStatus(404)
                            .withHeader("X-ClickHouse-Exception-Code", "60")
                            .withBody("Code: 60. DB::Exception: Table ldv_logging.spans does not exist. (UNKNOWN_TABLE)"
                                    + " (version 25.3.1.1)\n")));

            assertThatThrownBy(() -> repository.insert(List.of(root())))
                    .isInstanceOfSatisfying(
                            SpanStore.Failure.class,
                            failure -> assertThat(failure.reason()).isEqualTo("no-table"));

            server.resetAll();
            server.stubFor(
                    any(anyUrl())
                            .willReturn(
                                    aResponse()
                                            .withStatus(516)
                                            .withHeader("X-ClickHouse-Exception-Code", "516")
                                            .withBody(
                                                    "Code: 516. DB::Exception: ldv: Authentication failed. (AUTHENTICATION_FAILED)\n")));
            assertThatThrownBy(() -> repository.insert(List.of(root())))
                    .isInstanceOfSatisfying(
                            SpanStore.Failure.class,
                            failure -> assertThat(failure.reason()).isEqualTo("refused"));
        }
    }

    /**
     * Only a row the server cannot take is a row's failure (written again alone by the exporter); a connection reset
     * after the body was sent may follow a committed insert, so its rows must not go in a second time.
     */
    @Test
    void onlyARowTheServerCannotParseIsARowsFailure() {
        try (ClickHouseSpanRepository repository = repository()) {
            server.stubFor(any(anyUrl())
                    .willReturn(aResponse()
                            .withStatus(400)
                            .withHeader("X-ClickHouse-Exception-Code", "27")
                            .withBody("Code: 27. DB::Exception: Cannot parse input: expected '\"' before: 'x'."
                                    + " (CANNOT_PARSE_INPUT_ASSERTION_FAILED) (version 25.3.1.1)\n")));
            assertThatThrownBy(() -> repository.insert(List.of(root())))
                    .isInstanceOfSatisfying(SpanStore.Failure.class, failure -> {
                        assertThat(failure.reason()).isEqualTo("error");
                        assertThat(failure.oneRow()).isTrue();
                    });

            server.resetAll();
            server.stubFor(any(anyUrl())
                    .willReturn(aResponse()
                            .withFault(com.github.tomakehurst.wiremock.http.Fault.CONNECTION_RESET_BY_PEER)));
            assertThatThrownBy(() -> repository.insert(List.of(root())))
                    .isInstanceOfSatisfying(
                            SpanStore.Failure.class,
                            failure -> assertThat(failure.oneRow()).isFalse());
        }
    }

    @Test
    void aServerThatIsDownIsAConnectionFailureWithinTheTimeout() {
        server.start();
        int port = server.port();
        server.stop();
        try (ClickHouseSpanRepository repository = new ClickHouseSpanRepository(new LdvSettings.ClickHouse(
                "http://127.0.0.1:" + port, "ldv", "x", "ldv_logging", "spans", Duration.ofSeconds(1)))) {
            long started = System.nanoTime();
            assertThatThrownBy(() -> repository.insert(List.of(root())))
                    .isInstanceOfSatisfying(
                            SpanStore.Failure.class,
                            failure -> assertThat(failure.reason()).isIn("connection", "timeout"));
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
        }
    }
}
