package nl.overheid.moz.nmc.webhook;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cloudevents.CloudEvent;
import io.helidon.dbclient.DbTransaction;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.engine.OwnedTasks;
import nl.overheid.moz.nmc.engine.SubjectLock;
import nl.overheid.moz.nmc.engine.Task;
import nl.overheid.moz.nmc.engine.TaskHandler;
import nl.overheid.moz.nmc.engine.TaskKind;
import nl.overheid.moz.nmc.engine.TaskRepository;
import nl.overheid.moz.nmc.feed.Cursor;
import nl.overheid.moz.nmc.feed.CursorCodec;
import nl.overheid.moz.nmc.feed.EventRepository;
import nl.overheid.moz.nmc.feed.StatusEvents;
import nl.overheid.moz.nmc.ldv.DataSubjects;
import nl.overheid.moz.nmc.ldv.ProcessingLog;
import nl.overheid.moz.nmc.lifecycle.NotificatieRepository;
import nl.overheid.moz.nmc.observe.NmcMetrics;
import nl.overheid.moz.nmc.outbound.PublicTargets;
import nl.overheid.moz.nmc.planning.HandlerSupport;
import nl.overheid.moz.nmc.trace.Span;

/**
 * The {@code terugkoppelen} task, one per DV with a webhook, long-lived: each run delivers at most one batch
 * and plans the task again (at once when there may be more, after the idle interval when there was nothing,
 * after a wait or a pause after a failure).
 *
 * <ol>
 *   <li>Under the webhook position's lock (then the task row with its epoch): a paused webhook waits; else
 *       the DV's events after the position, under the feed's watermark, at most a batch; the lease extended.</li>
 *   <li>Without locks: the target checked again (https, public addresses), an LDV record per notification in
 *       the batch (the events are pseudonymous personal data the DV receives), the signed POST.</li>
 *   <li>Under the same locks: a 2xx moves the position to the batch's last event (never the acknowledgement);
 *       a failure counts, and after the DV's agreed number in a row the webhook pauses. An LDV failure only
 *       postpones: no call was made, so nothing counts.</li>
 * </ol>
 */
public final class WebhookDelivery implements TaskHandler {

    private static final Logger LOG = Logger.getLogger(WebhookDelivery.class.getName());

    private final OwnedTasks owned;
    private final TaskRepository tasks;
    private final WebhookPositionRepository positions;
    private final EventRepository events;
    private final StatusEvents statusEvents;
    private final CursorCodec cursors;
    private final NotificatieRepository notificaties;
    private final ProcessingLog ldv;
    private final SigningKeys keys;
    private final PublicTargets targets;
    private final WebhookClient client;
    private final WebhookSettings settings;
    private final ObjectMapper mapper;
    private final NmcMetrics metrics;
    private final Clock clock;
    private final Duration lease;

    public WebhookDelivery(
            HandlerSupport support,
            WebhookPositionRepository positions,
            EventRepository events,
            StatusEvents statusEvents,
            CursorCodec cursors,
            SigningKeys keys,
            PublicTargets targets,
            WebhookClient client,
            WebhookSettings settings,
            ObjectMapper mapper) {
        this.owned = support.owned();
        this.tasks = support.tasks();
        this.positions = positions;
        this.events = events;
        this.statusEvents = statusEvents;
        this.cursors = cursors;
        this.notificaties = support.notificaties();
        this.ldv = support.ldv();
        this.keys = keys;
        this.targets = targets;
        this.client = client;
        this.settings = settings;
        this.mapper = mapper;
        this.metrics = support.metrics();
        this.clock = support.clock();
        this.lease = support.lease();
    }

    @Override
    public TaskKind kind() {
        return TaskKind.TERUGKOPPELEN;
    }

    /** The subject is the DV's webhook position: the resume call takes the same lock first. */
    @Override
    public SubjectLock<WebhookPositionRepository.Position> subjectLock() {
        return (tx, task) -> positions.lock(tx, task.dvId());
    }

    /** What one run delivers. */
    private record Batch(
            URI url,
            int epoch,
            List<EventRepository.Event> events,
            byte[] body,
            String cursor,
            List<NotificatieRepository.ProcessingContext> contexts) {}

    @Override
    public void execute(Task task) {
        Batch batch = owned.computeUnderLocks(task, subjectLock(), (tx, position) -> prepare(tx, task, position))
                .orElse(null);
        if (batch == null) {
            return;
        }
        Optional<String> refused = targets.refused(batch.url());
        if (refused.isPresent()) {
            settle(task, batch, new WebhookClient.Outcome.Failed(refused.get()));
            return;
        }
        Span call = Span.root();
        List<ProcessingLog.Processing> recorded = new java.util.ArrayList<>();
        for (NotificatieRepository.ProcessingContext c : batch.contexts()) {
            if (!ours(task)) {
                // the records already written name a call that will not happen
                recorded.forEach(written -> ldv.failed(written, ProcessingLog.NOT_CALLED, clock.instant()));
                return;
            }
            ProcessingLog.Processing processing = new ProcessingLog.Processing(
                    Span.childOf(c.traceId(), c.acceptanceSpanId()),
                    ProcessingLog.Operation.STATUS_TERUGKOPPELEN,
                    c.processingActivity(),
                    new DataSubjects.DataSubject(c.dataSubject(), c.dataSubjectType()),
                    clock.instant(),
                    // the DV named by its webhook's origin: the URL's path is the DV's and may hold a secret,
                    // which every reader of the processing log would then see
                    batch.url().getScheme() + "://" + batch.url().getRawAuthority(),
                    null);
            if (ldv.record(processing) instanceof ProcessingLog.Written.Unavailable) {
                // the records already written name a call that will not happen now
                recorded.forEach(written -> ldv.failed(written, ProcessingLog.NOT_CALLED, clock.instant()));
                // No record, no call: the LDV store's failure is not the DV's, so the webhook's count is untouched.
                owned.underLocks(
                        task,
                        subjectLock(),
                        (tx, position) ->
                                tasks.reschedule(tx, task, clock.instant().plus(settings.retryBase())));
                return;
            }
            recorded.add(processing);
        }
        if (!ours(task)) {
            recorded.forEach(written -> ldv.failed(written, ProcessingLog.NOT_CALLED, clock.instant()));
            return;
        }
        WebhookClient.Outcome outcome = client.post(
                batch.url(), keys.token(batch.url(), batch.body(), batch.cursor()), batch.cursor(), batch.body(), call);
        if (outcome instanceof WebhookClient.Outcome.Failed failed) {
            recorded.forEach(processing -> ldv.failed(processing, failed.reason(), clock.instant()));
        }
        settle(task, batch, outcome);
    }

    /** Extends the claim's lease right before an external call; {@code false}: the task is another claim's now. */
    private boolean ours(Task task) {
        return owned.extendLease(task, clock.instant().plus(lease));
    }

    private Batch prepare(DbTransaction tx, Task task, WebhookPositionRepository.Position position) {
        Instant now = clock.instant();
        if (position.webhookUrl() == null) {
            // The DV no longer has a webhook: its position goes with the task, so it holds the event log no longer.
            positions.remove(tx, position.dvId());
            tasks.complete(tx, task);
            return null;
        }
        if (position.pausedAt(now)) {
            tasks.reschedule(tx, task, position.gepauzeerdTot());
            return null;
        }
        int epoch = events.clusterEpoch(tx);
        Cursor after;
        if (position.epoch() != null && position.epoch() != epoch) {
            LOG.warning(() -> "webhook position of DV " + position.dvId() + " belongs to cluster epoch "
                    + position.epoch() + "; delivering from the oldest event of epoch " + epoch);
            positions.restart(tx, position.dvId(), epoch);
            after = Cursor.start(epoch, now);
        } else if (position.transactionId() == null) {
            after = Cursor.start(epoch, now);
        } else {
            after = new Cursor(epoch, position.transactionId(), position.eventId(), now);
        }
        List<EventRepository.Event> page = events.readAfter(tx, position.dvId(), after, settings.batchSize());
        if (page.isEmpty()) {
            tasks.reschedule(tx, task, now.plus(settings.idleInterval()));
            return null;
        }
        tasks.extendLease(tx, task, now.plus(lease));
        EventRepository.Event last = page.getLast();
        String cursor = cursors.encode(new Cursor(epoch, last.transactionId(), last.id(), now));
        List<CloudEvent> cloudEvents =
                page.stream().map(statusEvents::cloudEvent).toList();
        byte[] body;
        try {
            body = mapper.writeValueAsBytes(cloudEvents);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialise a webhook batch", e);
        }
        LinkedHashSet<UUID> subjects = new LinkedHashSet<>();
        page.forEach(event -> subjects.add(event.notificatie()));
        return new Batch(
                position.webhookUrl(), epoch, page, body, cursor, notificaties.processingContexts(tx, subjects));
    }

    private void settle(Task task, Batch batch, WebhookClient.Outcome outcome) {
        owned.underLocks(task, subjectLock(), (tx, position) -> {
            Instant now = clock.instant();
            switch (outcome) {
                case WebhookClient.Outcome.Delivered delivered -> {
                    EventRepository.Event last = batch.events().getLast();
                    positions.delivered(tx, position.dvId(), batch.epoch(), last.transactionId(), last.id(), now);
                    metrics.webhookDelivered(batch.events().size());
                    // A full batch: there may be more at once. Otherwise look again after the idle interval.
                    tasks.reschedule(
                            tx,
                            task,
                            batch.events().size() >= settings.batchSize() ? now : now.plus(settings.idleInterval()));
                }
                case WebhookClient.Outcome.Failed failed -> {
                    int failures = position.mislukkingen() + 1;
                    metrics.webhookFailed();
                    // After a pause one failure is enough to pause again, longer: the DV is not back yet (a resume
                    // clears the pauses: the agreed number of failures again). The count goes on through pauses: the
                    // DV reads it as the failures since the last success.
                    if (failures >= position.maxFailures() || position.pauzes() > 0) {
                        int pauses = position.pauzes() + 1;
                        Instant until = now.plus(settings.pause(pauses));
                        positions.failed(tx, position.dvId(), failures, pauses, until, failed.reason());
                        LOG.warning(() -> "webhook of DV " + position.dvId() + " paused until " + until + " after "
                                + failures + " failed deliveries (last: " + failed.reason() + ")");
                        tasks.reschedule(tx, task, until);
                    } else {
                        positions.failed(tx, position.dvId(), failures, position.pauzes(), null, failed.reason());
                        tasks.reschedule(tx, task, now.plus(settings.retryAfter(failures)));
                    }
                }
            }
        });
    }
}
