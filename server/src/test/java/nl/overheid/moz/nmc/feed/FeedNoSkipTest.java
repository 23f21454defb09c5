package nl.overheid.moz.nmc.feed;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.db.DatabaseSettings;
import nl.overheid.moz.nmc.register.Dienstverlener;
import nl.overheid.moz.nmc.testing.TestDatabase;
import nl.overheid.moz.nmc.testing.noskip.EventWorkload;
import nl.overheid.moz.nmc.testing.noskip.FeedReader;
import nl.overheid.moz.nmc.testing.noskip.Outcome;
import nl.overheid.moz.nmc.testing.noskip.Reader;
import nl.overheid.moz.nmc.testing.noskip.WebhookReader;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * "No event is ever skipped or duplicated" (design §8) for the pull feed and the webhook: over 100,000 events from writers
 * that commit out of start order, some held open and some rolled back, across an event partition created
 * mid-run and into event_default, every reader pages its DV's feed with real cursors, and every DV's webhook
 * delivers from its own position through the real task and HTTP call, and each gets every committed event
 * exactly once. A fresh seed each run, printed; reproduce the plan with {@code -Dnmc.noskip.seed=N}.
 */
@Tag("concurrency")
class FeedNoSkipTest {

    private static final long SEED =
            Long.getLong("nmc.noskip.seed", ThreadLocalRandom.current().nextLong(1L << 48));
    private static final int[] PAGE_SIZES = {7, 50};
    private static final int WEBHOOK_BATCH = 100;

    @Test
    void everyCommittedEventReachesEveryReaderOfItsDvExactlyOnce() throws InterruptedException {
        System.out.println("FEED-NO-SKIP seed " + SEED + " (reproduce with -Dnmc.noskip.seed=" + SEED + ")");
        EventWorkload.Settings settings = EventWorkload.Settings.defaults(SEED);
        TestDatabase db = TestDatabase.separate();
        // The workload reshapes the event partitions, so it gets a database of its own, and a pool with a
        // connection for every writer, reader and the maintenance duty.
        int connections = settings.writers() + settings.laggards() + settings.dvs() * (PAGE_SIZES.length + 1) + 2;
        try (Database database = Database.open(DatabaseSettings.of(db.url(), db.user(), db.password())
                .withPoolSize(connections)
                .withSchemaMode("migrate"))) {
            EventWorkload workload = EventWorkload.prepare(database, settings);
            Feed feed = new Feed(
                    database,
                    new EventRepository(),
                    new StatusEvents(URI.create("urn:nld:oin:00000001234567890000:systeem:nmc")),
                    new CursorCodec("feed-no-skip-test-cursor-key-0123456789".getBytes(StandardCharsets.US_ASCII)),
                    Clock.systemUTC());
            List<Reader> readers = new ArrayList<>();
            List<WebhookReader> webhooks = new ArrayList<>();
            for (Dienstverlener dv : workload.dvs()) {
                for (int limit : PAGE_SIZES) {
                    readers.add(new FeedReader(feed, dv, limit));
                }
                // The webhook's delivery position, through the real task and its HTTP call.
                webhooks.add(new WebhookReader(database, dv.id(), WEBHOOK_BATCH));
            }
            readers.addAll(webhooks);

            Outcome outcome;
            try {
                outcome = workload.run(readers);
            } finally {
                webhooks.forEach(WebhookReader::close);
            }
            System.out.println(outcome.figures());

            assertThat(outcome.problems()).as("seed %d", SEED).isEmpty();
            assertThat(outcome.committedEvents())
                    .as("enough events to mean something")
                    .isGreaterThanOrEqualTo(100_000);
            assertThat(outcome.createdPartition())
                    .as("maintenance created the next partition mid-run")
                    .isNotNull();
            assertThat(outcome.partitions())
                    .as("events on both sides of the boundary and in event_default")
                    .containsKeys("event_p0", outcome.createdPartition(), "event_default")
                    .allSatisfy((partition, events) -> assertThat(events).isPositive());
        }
    }
}
