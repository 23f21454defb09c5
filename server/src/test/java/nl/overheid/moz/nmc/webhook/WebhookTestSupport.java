package nl.overheid.moz.nmc.webhook;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.helidon.dbclient.DbTransaction;
import java.net.URI;
import java.security.KeyPair;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.db.Statement;
import nl.overheid.moz.nmc.engine.OwnedTasks;
import nl.overheid.moz.nmc.engine.TaskRepository;
import nl.overheid.moz.nmc.feed.CursorCodec;
import nl.overheid.moz.nmc.feed.EventRepository;
import nl.overheid.moz.nmc.feed.StatusEvents;
import nl.overheid.moz.nmc.ldv.ProcessingLog;
import nl.overheid.moz.nmc.lifecycle.NotificatieRepository;
import nl.overheid.moz.nmc.observe.NmcMetrics;
import nl.overheid.moz.nmc.outbound.PublicTargets;
import nl.overheid.moz.nmc.planning.HandlerSupport;
import nl.overheid.moz.nmc.testing.TestWebhookKeys;

/** The webhook's real handler assembled for tests below the API (the no-skip test's webhook reader). */
public final class WebhookTestSupport {

    private static final Statement DV_WEBHOOK_SET =
            Statement.named("testDvWebhookSet", "UPDATE dienstverlener SET webhook_url = :url WHERE id = :dvId");

    private WebhookTestSupport() {}

    /** {@link WebhookDelivery} as the NMC wires it, with these batches, no idle wait and a test key. */
    public static WebhookDelivery delivery(
            Database database,
            TaskRepository tasks,
            EventRepository events,
            StatusEvents statusEvents,
            CursorCodec cursors,
            NotificatieRepository reads,
            ProcessingLog ldv,
            NmcMetrics metrics,
            int batchSize,
            Clock clock) {
        WebhookSettings settings = WebhookSettings.defaults()
                .withIssuer(URI.create("https://nmc.test.local"))
                .withBatchSize(batchSize)
                .withIdleInterval(Duration.ZERO)
                .withRetryBase(Duration.ofMillis(10))
                .withPauseBase(Duration.ofSeconds(1))
                .withPauseMax(Duration.ofSeconds(1))
                .withAllowPrivateTargets(true);
        KeyPair pair = TestWebhookKeys.CURRENT.keyPair;
        SigningKeys keys = new SigningKeys(
                List.of(SigningKeys.of(
                        TestWebhookKeys.CURRENT.kid,
                        pair.getPrivate(),
                        pair.getPublic(),
                        Instant.EPOCH,
                        Instant.EPOCH)),
                settings.issuer(),
                settings.tokenLifetime(),
                settings.jwksMaxAge(),
                clock,
                Clock.systemUTC());
        ObjectMapper mapper = new ObjectMapper().registerModule(StatusEvents.jacksonModule());
        HandlerSupport support = new HandlerSupport(
                new OwnedTasks(database, tasks),
                tasks,
                null,
                null,
                null,
                reads,
                ldv,
                metrics,
                clock,
                Duration.ofMinutes(1),
                failures -> Duration.ofSeconds(1));
        return new WebhookDelivery(
                support,
                new WebhookPositionRepository(),
                events,
                statusEvents,
                cursors,
                keys,
                new PublicTargets(true),
                new WebhookClient(settings),
                settings,
                mapper);
    }

    /** Gives the DV this webhook, its delivery position and its task, as onboarding and the duty would. */
    public static void register(DbTransaction tx, UUID dvId, URI url) {
        DV_WEBHOOK_SET
                .dml(tx)
                .addParam("url", url.toString())
                .addParam("dvId", dvId)
                .execute();
        new WebhookPositionRepository().ensure(tx, Instant.now());
    }
}
