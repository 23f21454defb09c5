package nl.overheid.moz.nmc.testing.noskip;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.engine.Task;
import nl.overheid.moz.nmc.engine.TaskKind;
import nl.overheid.moz.nmc.engine.TaskRepository;
import nl.overheid.moz.nmc.feed.CursorCodec;
import nl.overheid.moz.nmc.feed.EventRepository;
import nl.overheid.moz.nmc.feed.StatusEvents;
import nl.overheid.moz.nmc.ldv.ProcessingLog;
import nl.overheid.moz.nmc.lifecycle.NotificatieRepository;
import nl.overheid.moz.nmc.observe.NmcMetrics;
import nl.overheid.moz.nmc.webhook.WebhookDelivery;
import nl.overheid.moz.nmc.webhook.WebhookTestSupport;

/**
 * A DV's webhook as a reader: the DV's {@code terugkoppelen} task is claimed through the engine's own claim
 * and run by the real {@link WebhookDelivery} (its read from the delivery position under the watermark, the
 * signed POST, the position moved on the 2xx), and a local HTTP endpoint of the DV collects what arrives.
 * Only the processing log is replaced: it takes every record at once (the log is not what is tested here).
 */
public final class WebhookReader implements Reader, AutoCloseable {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final Database database;
    private final UUID dvId;
    private final int batchSize;
    private final TaskRepository tasks = new TaskRepository();
    private final WebhookDelivery delivery;
    private final HttpServer dv;
    private final ConcurrentLinkedQueue<Delivered> received = new ConcurrentLinkedQueue<>();
    private final NmcMetrics metrics;

    public WebhookReader(Database database, UUID dvId, int batchSize) {
        this.database = database;
        this.dvId = dvId;
        this.batchSize = batchSize;
        try {
            dv = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        dv.createContext("/webhook", exchange -> {
            try (exchange) {
                for (JsonNode event : MAPPER.readTree(exchange.getRequestBody())) {
                    received.add(new Delivered(
                            Long.parseLong(event.path("id").asText()),
                            UUID.fromString(event.path("subject").asText()),
                            Integer.parseInt(event.path("sequence").asText())));
                }
                exchange.sendResponseHeaders(204, -1);
            }
        });
        dv.start();
        URI url = URI.create("http://127.0.0.1:" + dv.getAddress().getPort() + "/webhook");
        metrics = new NmcMetrics();
        ProcessingLog acknowledgesAll = new ProcessingLog() {
            @Override
            public Written record(Processing processing) {
                return new Written.Acknowledged();
            }

            @Override
            public void failed(Processing processing, String reason, java.time.Instant at) {}
        };
        delivery = WebhookTestSupport.delivery(
                database,
                tasks,
                new EventRepository(),
                new StatusEvents(URI.create("urn:nld:oin:00000001234567890000:systeem:nmc")),
                new CursorCodec("feed-no-skip-webhook-cursor-key-0123456789".getBytes()),
                new NotificatieRepository(),
                acknowledgesAll,
                metrics,
                batchSize,
                Clock.systemUTC());
        database.inTransactionDo(tx -> WebhookTestSupport.register(tx, dvId, url));
    }

    @Override
    public UUID dvId() {
        return dvId;
    }

    @Override
    public String label() {
        return "webhook/batch=" + batchSize;
    }

    /** One claim of the DV's task through the engine and its run; what the DV received meanwhile. */
    @Override
    public Page next() {
        var now = Clock.systemUTC().instant();
        List<Task> claimed = database.inTransaction(
                tx -> tasks.claimDue(tx, TaskKind.TERUGKOPPELEN, null, dvId, 1, now, now.plus(Duration.ofMinutes(1))));
        claimed.forEach(delivery::execute);
        List<Delivered> page = new ArrayList<>();
        for (Delivered event = received.poll(); event != null; event = received.poll()) {
            page.add(event);
        }
        return new Page(page);
    }

    @Override
    public void close() {
        dv.stop(0);
        metrics.close();
    }
}
