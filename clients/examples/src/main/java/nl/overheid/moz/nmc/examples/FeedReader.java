package nl.overheid.moz.nmc.examples;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import nl.overheid.moz.nmc.client.ApiClient;
import nl.overheid.moz.nmc.client.ApiException;
import nl.overheid.moz.nmc.client.api.WijzigingenApi;
import nl.overheid.moz.nmc.client.model.Bevestiging;
import nl.overheid.moz.nmc.client.model.CloudEvent;
import nl.overheid.moz.nmc.client.model.Wijzigingen;

/**
 * How a DV reads the NMC's change feed, on the generated SDK: page by page from its own cursor, each event
 * processed per notification ({@code subject}) by {@code sequence} — an event with a lower sequence than one
 * already seen is ignored — and the cursor acknowledged once the page is processed. On 410 the cursor is gone
 * (another cluster epoch, a removed partition, older than the agreed age): start again without one; on 429
 * wait {@code Retry-After}. The cursor is kept in a file, so a restart continues where it stopped.
 *
 * <p>Run with {@code scripts/dv-example feed} while {@code scripts/run} runs. Environment: {@code NMC_BASE_URL}
 * (default {@code http://localhost:8080}), {@code NMC_TOKEN} (the DV's access token), {@code FEED_CURSOR_FILE}.
 */
public final class FeedReader {

    private final WijzigingenApi api;
    private final Path cursorFile;
    /** The highest sequence seen per notification: a real DV keeps this with its own data. */
    private final Map<UUID, Integer> highest = new HashMap<>();

    FeedReader(WijzigingenApi api, Path cursorFile) {
        this.api = api;
        this.cursorFile = cursorFile;
    }

    public static void main(String[] args) throws Exception {
        String token = Env.required("NMC_TOKEN");
        ApiClient client = Env.client(token);
        Path cursorFile = Path.of(Env.get("FEED_CURSOR_FILE", ".dev/examples/feed-cursor"));
        Files.createDirectories(cursorFile.toAbsolutePath().getParent());
        new FeedReader(new WijzigingenApi(client), cursorFile).run(Duration.ofSeconds(2));
    }

    void run(Duration pollInterval) throws Exception {
        String cursor = Files.exists(cursorFile) ? Files.readString(cursorFile).strip() : null;
        System.out.println("feed reader: " + (cursor == null ? "from the oldest event" : "from the saved cursor"));
        while (!Thread.currentThread().isInterrupted()) {
            try {
                Wijzigingen page = api.wijzigingenLezen(cursor, 100);
                process(page.getEvents());
                if (!page.getEvents().isEmpty()) {
                    api.wijzigingenBevestigen(new Bevestiging().cursor(page.getCursor()));
                    Files.writeString(cursorFile, page.getCursor());
                }
                cursor = page.getCursor();
                if (page.getEvents().isEmpty()) {
                    Thread.sleep(pollInterval);
                }
            } catch (ApiException e) {
                if (e.getCode() == 410) {
                    System.out.println("feed reader: cursor gone (410); starting again from the oldest event");
                    cursor = null;
                    Files.deleteIfExists(cursorFile);
                } else if (e.getCode() == 429) {
                    long wait = retryAfter(e);
                    System.out.println("feed reader: rate limit (429); waiting " + wait + " s");
                    Thread.sleep(Duration.ofSeconds(wait));
                } else {
                    throw e;
                }
            }
        }
    }

    /** Per subject by sequence: an event older than one already processed is ignored. */
    void process(List<CloudEvent> events) {
        for (CloudEvent event : events) {
            int sequence = Integer.parseInt(event.getSequence());
            int seen = highest.getOrDefault(event.getSubject(), 0);
            if (sequence <= seen) {
                System.out.println("  ignored " + event.getSubject() + " #" + sequence + " (already at #" + seen + ")");
                continue;
            }
            highest.put(event.getSubject(), sequence);
            System.out.println("  " + event.getSubject() + " #" + sequence + " "
                    + event.getData().getNaar().getValue()
                    + (event.getData().getReden() == null
                            ? ""
                            : " (" + event.getData().getReden().getValue() + ")"));
        }
    }

    private static long retryAfter(ApiException e) {
        return e.getResponseHeaders() == null
                ? 1
                : e.getResponseHeaders()
                        .firstValue("Retry-After")
                        .map(value -> Math.max(1, Long.parseLong(value.strip())))
                        .orElse(1L);
    }

    /** The examples' shared set-up. */
    static final class Env {
        private Env() {}

        static String get(String name, String fallback) {
            String value = System.getenv(name);
            return value == null || value.isBlank() ? fallback : value;
        }

        static String required(String name) {
            String value = System.getenv(name);
            if (value == null || value.isBlank()) {
                throw new IllegalStateException(name + " is required (scripts/dv-example sets it)");
            }
            return value;
        }

        /** The SDK's client for the NMC at {@code NMC_BASE_URL}, sending the DV's access token. */
        static ApiClient client(String token) {
            URI base = URI.create(get("NMC_BASE_URL", "http://localhost:8080"));
            ApiClient client = new ApiClient();
            client.setScheme(base.getScheme());
            client.setHost(base.getHost());
            client.setPort(base.getPort());
            client.setBasePath("/api/nmc/v1");
            client.setRequestInterceptor(request -> request.header("Authorization", "Bearer " + token));
            return client;
        }
    }
}
