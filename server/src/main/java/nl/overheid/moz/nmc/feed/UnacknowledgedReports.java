package nl.overheid.moz.nmc.feed;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.helidon.dbclient.DbTransaction;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.engine.Duty;
import nl.overheid.moz.nmc.feed.EventRepository.UnacknowledgedCount;
import nl.overheid.moz.nmc.observe.NmcMetrics;
import nl.overheid.moz.nmc.outbound.BoundedHttpClient;
import nl.overheid.moz.nmc.outbound.PublicTargets;

/**
 * Unacknowledged terminal statuses (design §8, §11): per DV, the terminal events older than the DV's
 * {@code bevestigingstermijn} that lie beyond its acknowledged cursor. Every check sets the per-DV metric;
 * a DV with such statuses and a management channel ({@code beheerkanaal}, an https endpoint of the DV's
 * operations) gets one report per period: a JSON POST with the count and the oldest time, no notification
 * ids (pseudonymous personal data) — the DV finds them in its own feed. The channel's address is checked again
 * before every call, as a webhook's is ({@link PublicTargets}: https on a public address), and the call is bounded as a
 * whole, body included ({@link BoundedHttpClient}), so a channel that answers its headers and then drips cannot hold
 * the duty.
 */
public final class UnacknowledgedReports implements Duty {

    private static final Logger LOG = Logger.getLogger(UnacknowledgedReports.class.getName());

    private final Database database;
    private final EventRepository events;
    private final NmcMetrics metrics;
    private final Clock clock;
    private final Duration checkInterval;
    private final Duration reportInterval;
    private final BoundedHttpClient http;
    private final PublicTargets targets;
    private final Duration timeout;
    private final ObjectMapper mapper = new ObjectMapper();
    private Instant lastCheck = Instant.MIN;

    /**
     * @param checkInterval  how often the counts are taken (the duty itself may run more often)
     * @param reportInterval at most one report per DV per this period
     */
    public UnacknowledgedReports(
            Database database,
            EventRepository events,
            NmcMetrics metrics,
            Clock clock,
            Duration checkInterval,
            Duration reportInterval,
            Duration timeout,
            PublicTargets targets) {
        this.database = database;
        this.events = events;
        this.metrics = metrics;
        this.clock = clock;
        this.checkInterval = checkInterval;
        this.reportInterval = reportInterval;
        this.timeout = timeout;
        this.targets = targets;
        // The whole exchange within the timeout; the DV's answer is not read beyond a small cap.
        this.http = BoundedHttpClient.create("beheerkanaal", timeout, timeout, 64 * 1024);
    }

    @Override
    public String name() {
        return "unacknowledged terminal statuses";
    }

    @Override
    public synchronized int runOnce() {
        Instant now = clock.instant();
        if (lastCheck.plus(checkInterval).isAfter(now)) {
            return 0;
        }
        lastCheck = now;
        int reported = 0;
        for (UnacknowledgedCount count : database.inTransaction(tx -> counts(tx, now))) {
            metrics.unacknowledgedTerminal(count.oin(), count.count());
            boolean due = count.lastReported() == null
                    || !count.lastReported().plus(reportInterval).isAfter(now);
            if (count.count() > 0 && count.channel() != null && due && report(count, now)) {
                database.inTransactionDo(tx -> events.recordReport(tx, count.dvId(), now, count.count()));
                reported++;
            }
        }
        return reported;
    }

    List<UnacknowledgedCount> counts(DbTransaction tx, Instant now) {
        return events.unacknowledgedTerminal(tx, now, events.clusterEpoch(tx));
    }

    /** The report on the DV's management channel; {@code false} when it did not take it (tried next period). */
    private boolean report(UnacknowledgedCount count, Instant now) {
        Optional<String> refused = targets.refused(count.channel());
        if (refused.isPresent()) {
            LOG.warning(() -> "management channel of DV " + count.oin() + " not called: " + refused.get());
            return false;
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("onderwerp", "onbevestigde-terminale-statussen");
        body.put("dienstverlener", count.oin());
        body.put("aantal", count.count());
        body.put("oudsteTijdstip", count.oldest().toString());
        body.put("bevestigingstermijn", count.termijn().toString());
        body.put("gemeldOp", now.toString());
        try {
            HttpRequest request = HttpRequest.newBuilder(count.channel())
                    .timeout(timeout)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(mapper.writeValueAsBytes(body)))
                    .build();
            int status =
                    http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
            if (status / 100 != 2) {
                LOG.warning(() -> "management channel of DV " + count.oin() + " answered " + status);
            }
            return status / 100 == 2;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        } catch (IOException e) {
            LOG.warning(() -> "management channel of DV " + count.oin() + " not reached: "
                    + e.getClass().getSimpleName());
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
