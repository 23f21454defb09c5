package nl.overheid.moz.nmc.flow;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import nl.overheid.moz.nmc.testing.Http;
import nl.overheid.moz.nmc.testing.ManualRunner;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The NMC's own traces as a collector receives them: a local OTLP/HTTP endpoint takes the export (protobuf, decoded
 * with the protocol's own messages), and one notification's life, from the DV's request to {@code
 * definitief-bezorgd}, is one trace: the request's SERVER span in the DV's trace, each task run a child of it, each
 * call to NotifyNL a CLIENT child of its run with the very span id its {@code traceparent} named. Nothing personal
 * is in any span: no address, dvRef, personalisation, token, path with an id or query.
 */
class OtlpTracesTest extends LifecycleTestBase {

    private static final String DV_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String DV_SPAN = "00f067aa0ba902b7";
    private static final String ROUTE = "/api/nmc/v1/decentraal/notificaties";

    private static Receiver receiver;

    @BeforeAll
    static void receive() throws IOException {
        receiver = new Receiver();
    }

    @AfterAll
    static void stopReceiving() {
        receiver.close();
    }

    @Override
    protected String overridesYaml() {
        return "tracing: {sampler-ratio: 1.0, otlp: {endpoint: '" + receiver.endpoint() + "'}}";
    }

    @Test
    void oneNotificationsLifeIsOneTraceFromItsAcceptanceToDefinitiefBezorgd() throws Exception {
        receiver.clear();
        String token = tokenA();
        HttpResponse<String> accepted = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + nmc.port() + ROUTE))
                                .header("Authorization", "Bearer " + token)
                                .header("Content-Type", "application/json")
                                .header("traceparent", "00-" + DV_TRACE + "-" + DV_SPAN + "-01")
                                .POST(HttpRequest.BodyPublishers.ofString(Http.json(Map.of(
                                        "dvRef",
                                        DV_REF,
                                        "berichttype",
                                        TestNmc.BERICHTTYPE,
                                        "emailadres",
                                        EMAIL,
                                        "personalisation",
                                        Map.of("tekst", SECRET_TEXT)))))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(202);
        UUID id = UUID.fromString(nl.overheid.moz.nmc.Nmc.objectMapper()
                .readTree(accepted.body())
                .path("id")
                .asText());
        ManualRunner.of(nmc).runWorkersOnce();
        receipt(id, 1, "delivered");
        clock.advance(Duration.ofDays(7).plusMinutes(26));
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).isEqualTo("definitief-bezorgd:5");
        String sendTraceparent = notify.server().getAllServeEvents().stream()
                .map(ServeEvent::getRequest)
                .filter(request -> request.getMethod().getName().equals("POST")
                        && request.getUrl().startsWith("/v2/notifications/email"))
                .map(request -> request.getHeader("traceparent"))
                .findFirst()
                .orElseThrow();
        nmc.close(); // sends what the batch still holds
        assertThat(receiver.failures).as("what the receiver could not take").isEmpty();
        List<Span> spans = receiver.spans();

        List<Span> trace = spans.stream()
                .filter(span -> hex(span.getTraceId()).equals(DV_TRACE))
                .toList();
        Span request = only(trace, "POST " + ROUTE);
        assertThat(request.getKind()).isEqualTo(Span.SpanKind.SPAN_KIND_SERVER);
        assertThat(hex(request.getParentSpanId()))
                .as("a child of the DV's span")
                .isEqualTo(DV_SPAN);
        String dvId = query("SELECT dv_id FROM notificatie WHERE id = ?", id).getFirst();
        assertThat(attributes(request))
                .containsEntry("http.request.method", "POST")
                .containsEntry("http.route", ROUTE)
                .containsEntry("http.response.status_code", "202")
                .containsEntry("nmc.dv.id", dvId);
        assertThat(query("SELECT aanname_span_id FROM notificatie WHERE id = ?", id))
                .as("the request's span is the notification's acceptance span")
                .containsExactly(hex(request.getSpanId()));

        for (String kind : List.of("verzenden", "verwerken", "vaststellen")) {
            Span run = only(trace, kind);
            assertThat(hex(run.getParentSpanId()))
                    .as(kind + " continues the acceptance")
                    .isEqualTo(hex(request.getSpanId()));
            assertThat(attributes(run)).containsEntry("nmc.task.kind", kind).containsEntry("nmc.dv.id", dvId);
        }
        Span send = only(trace, "POST notifynl");
        assertThat(send.getKind()).isEqualTo(Span.SpanKind.SPAN_KIND_CLIENT);
        assertThat(hex(send.getParentSpanId()))
                .isEqualTo(hex(only(trace, "verzenden").getSpanId()));
        assertThat(sendTraceparent)
                .as("the call's traceparent names the call's span")
                .isEqualTo("00-" + DV_TRACE + "-" + hex(send.getSpanId()) + "-01");
        assertThat(attributes(send))
                .containsEntry("http.request.method", "POST")
                .containsEntry("http.response.status_code", "201")
                .containsEntry("server.address", URI.create(notify.baseUrl()).getHost())
                .containsEntry("nmc.peer", "notifynl");
        assertThat(receiver.resourceAttributes()).containsEntry("service.name", "notificatiemanagementcomponent");

        // Nothing personal anywhere in the export (every span of every trace, names, attributes, resource).
        String all = receiver.exportedText();
        assertThat(all).contains("POST notifynl", ROUTE);
        for (String personal : List.of(EMAIL, DV_REF, SECRET_TEXT, token, TestNmc.CALLBACK_TOKEN, id.toString(), "?")) {
            assertThat(all).as("personal or identifying: " + personal).doesNotContain(personal);
        }
    }

    private static Span only(List<Span> spans, String name) {
        List<Span> named =
                spans.stream().filter(span -> span.getName().equals(name)).toList();
        assertThat(named)
                .as(name + " among " + spans.stream().map(Span::getName).toList())
                .hasSize(1);
        return named.getFirst();
    }

    private static Map<String, String> attributes(Span span) {
        return attributes(span.getAttributesList());
    }

    private static Map<String, String> attributes(List<KeyValue> values) {
        Map<String, String> attributes = new LinkedHashMap<>();
        values.forEach(kv -> attributes.put(
                kv.getKey(),
                kv.getValue().hasIntValue()
                        ? Long.toString(kv.getValue().getIntValue())
                        : kv.getValue().getStringValue()));
        return attributes;
    }

    private static String hex(com.google.protobuf.ByteString bytes) {
        return HexFormat.of().formatHex(bytes.toByteArray());
    }

    /** A collector's OTLP/HTTP traces endpoint, as small as it can be: takes protobuf, answers an empty success. */
    private static final class Receiver implements AutoCloseable {

        private final HttpServer server;
        private final List<ExportTraceServiceRequest> received = new CopyOnWriteArrayList<>();
        private final List<Throwable> failures = new CopyOnWriteArrayList<>();

        Receiver() throws IOException {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.createContext("/v1/traces", exchange -> {
                try (exchange) {
                    received.add(ExportTraceServiceRequest.parseFrom(
                            exchange.getRequestBody().readAllBytes()));
                    byte[] answer =
                            ExportTraceServiceResponse.getDefaultInstance().toByteArray();
                    exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
                    exchange.sendResponseHeaders(200, answer.length == 0 ? -1 : answer.length);
                    exchange.getResponseBody().write(answer);
                } catch (Throwable e) {
                    failures.add(e);
                    throw e;
                }
            });
            server.start();
        }

        String endpoint() {
            return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1/traces";
        }

        void clear() {
            received.clear();
        }

        List<Span> spans() {
            List<Span> spans = new ArrayList<>();
            for (ExportTraceServiceRequest request : received) {
                for (ResourceSpans resource : request.getResourceSpansList()) {
                    for (ScopeSpans scope : resource.getScopeSpansList()) {
                        spans.addAll(scope.getSpansList());
                    }
                }
            }
            return spans;
        }

        Map<String, String> resourceAttributes() {
            return attributes(
                    received.getFirst().getResourceSpans(0).getResource().getAttributesList());
        }

        /** Every text the export carries: resource, scope, span names, attributes, status messages, events, links. */
        String exportedText() {
            StringBuilder text = new StringBuilder();
            for (ExportTraceServiceRequest request : received) {
                for (ResourceSpans resource : request.getResourceSpansList()) {
                    text.append(attributes(resource.getResource().getAttributesList()))
                            .append('\n');
                    for (ScopeSpans scope : resource.getScopeSpansList()) {
                        text.append(scope.getScope().getName()).append('\n');
                        for (Span span : scope.getSpansList()) {
                            text.append(span.getName())
                                    .append(attributes(span.getAttributesList()))
                                    .append(span.getStatus().getMessage())
                                    .append(span.getTraceState());
                            span.getEventsList()
                                    .forEach(event ->
                                            text.append(event.getName()).append(attributes(event.getAttributesList())));
                            span.getLinksList().forEach(link -> text.append(attributes(link.getAttributesList())));
                            text.append('\n');
                        }
                    }
                }
            }
            return text.toString();
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }
}
