package nl.overheid.moz.nmc;

import java.time.Duration;
import java.util.List;
import nl.overheid.moz.nmc.acceptance.Acceptance;
import nl.overheid.moz.nmc.acceptance.AcceptanceQuota;
import nl.overheid.moz.nmc.acceptance.Cancellation;
import nl.overheid.moz.nmc.acceptance.QuotaRepository;
import nl.overheid.moz.nmc.engine.TaskWorker;
import nl.overheid.moz.nmc.feed.EventRepository;
import nl.overheid.moz.nmc.feed.Feed;
import nl.overheid.moz.nmc.feed.StatusEvents;
import nl.overheid.moz.nmc.operator.OperatorActions;
import nl.overheid.moz.nmc.operator.OperatorAudit;
import nl.overheid.moz.nmc.operator.OperatorAuditRepository;
import nl.overheid.moz.nmc.planning.HandlerSupport;
import nl.overheid.moz.nmc.ratelimit.DvCallRepository;
import nl.overheid.moz.nmc.ratelimit.DvCalls;
import nl.overheid.moz.nmc.receipts.Finaliser;
import nl.overheid.moz.nmc.receipts.ReceiptProcessor;
import nl.overheid.moz.nmc.receipts.ReceiptRepository;
import nl.overheid.moz.nmc.receipts.ReceiptStore;
import nl.overheid.moz.nmc.receipts.Reconciler;
import nl.overheid.moz.nmc.retention.Erasure;
import nl.overheid.moz.nmc.retention.RetentionRepository;
import nl.overheid.moz.nmc.sending.InvalidAddressReporter;
import nl.overheid.moz.nmc.sending.SendPipeline;
import nl.overheid.moz.nmc.sending.TemplateRepository;
import nl.overheid.moz.nmc.sending.Templates;
import nl.overheid.moz.nmc.status.StatusQueries;
import nl.overheid.moz.nmc.webhook.WebhookClient;
import nl.overheid.moz.nmc.webhook.WebhookDelivery;
import nl.overheid.moz.nmc.webhook.WebhookPositionRepository;
import nl.overheid.moz.nmc.webhook.Webhooks;

/**
 * The six steps (design §3): those that run as tasks, one worker per kind, and those that answer requests —
 * acceptance and cancel, status, the feed and the webhook's state, the receipt store the callback writes to, the
 * operator's actions, and what the NMC knows of NotifyNL's templates (read by acceptance, kept by a duty).
 */
record Steps(
        List<TaskWorker> workers,
        Acceptance acceptance,
        AcceptanceQuota acceptanceQuota,
        Cancellation cancellation,
        StatusQueries status,
        ReceiptStore receiptStore,
        EventRepository events,
        StatusEvents statusEvents,
        Feed feed,
        DvCalls dvCalls,
        Webhooks webhooks,
        OperatorActions operatorActions,
        OperatorAudit operatorAudit,
        Templates templates) {

    static Steps create(Core core, Keys keys, Parties parties) {
        Settings settings = core.settings();
        HandlerSupport support = new HandlerSupport(
                core.owned(),
                core.tasks(),
                core.notificatieTasks(),
                core.transitions(),
                core.pogingen(),
                core.notificaties(),
                parties.ldv(),
                core.metrics(),
                core.clock(),
                settings.engine().lease(),
                settings.engine()::backoff);
        ReceiptRepository receiptRepository = new ReceiptRepository();
        ReceiptStore receiptStore =
                new ReceiptStore(core.database(), receiptRepository, core.notificatieTasks(), core.clock());
        Duration firstReconciliation = settings.reconcile().steps().getFirst();
        EventRepository events = new EventRepository();
        StatusEvents statusEvents = new StatusEvents(settings.nmc().eventSource());
        WebhookPositionRepository webhookPositions = new WebhookPositionRepository();
        Templates templates = new Templates(
                core.database(),
                new TemplateRepository(),
                parties.notifyNl(),
                core.clock(),
                settings.registerCacheTtl(),
                settings.notifyNl().templateRefreshInterval());

        List<TaskWorker> workers = List.of(
                        new SendPipeline(
                                support,
                                core.register(),
                                keys.envelope(),
                                parties.notifyNl(),
                                core.unusedTokens(),
                                parties.profielservice(),
                                settings.profielservice(),
                                firstReconciliation,
                                core.budget(),
                                settings.notifyNl(),
                                templates),
                        new ReceiptProcessor(
                                support,
                                receiptRepository,
                                settings.nmc().mebvPeriod(),
                                settings.nmc().finaliseMargin(),
                                firstReconciliation),
                        new Reconciler(
                                support,
                                core.database(),
                                receiptStore,
                                parties.notifyNl(),
                                core.unusedTokens(),
                                settings.reconcile(),
                                core.signals()),
                        new Finaliser(support, receiptRepository),
                        new InvalidAddressReporter(
                                support,
                                keys.envelope(),
                                parties.profielservice(),
                                settings.profielservice(),
                                core.register(),
                                failures -> settings.engine()
                                        .backoff(
                                                failures,
                                                settings.profielservice().reportBackoffMax())),
                        new Erasure(support, new RetentionRepository()),
                        new WebhookDelivery(
                                support,
                                webhookPositions,
                                events,
                                statusEvents,
                                keys.cursors(),
                                keys.signingKeys(),
                                core.publicTargets(),
                                new WebhookClient(settings.webhook()),
                                settings.webhook(),
                                Nmc.objectMapper()))
                .stream()
                .map(handler -> new TaskWorker(
                        handler,
                        core.database(),
                        core.tasks(),
                        core.budget(),
                        core.signals(),
                        core.clock(),
                        settings.engine(),
                        core.engineEvents(),
                        core.tracing()))
                .toList();

        AcceptanceQuota acceptanceQuota = new AcceptanceQuota(core.database(), new QuotaRepository(), core.clock());
        Webhooks webhooks = new Webhooks(
                core.database(), webhookPositions, core.tasks(), events, keys.cursors(), core.signals(), core.clock());
        OperatorAudit operatorAudit = new OperatorAudit(
                core.database(),
                new OperatorAuditRepository(),
                core.clock(),
                settings.retention().notifications());
        return new Steps(
                workers,
                new Acceptance(
                        core.database(),
                        core.transitions(),
                        core.notificatieTasks(),
                        core.notificaties(),
                        core.register(),
                        keys.peppers(),
                        keys.payloadPeppers(),
                        keys.envelope(),
                        keys.dataSubjects(),
                        acceptanceQuota,
                        (berichttype, personalisation) -> templates.missing(
                                berichttype.notifyService(), berichttype.notifyTemplateId(), personalisation),
                        core.clock(),
                        core.signals(),
                        core.metrics(),
                        settings.acceptanceGroups()),
                acceptanceQuota,
                new Cancellation(core.database(), core.transitions(), core.notificatieTasks()),
                new StatusQueries(core.database(), core.notificaties(), core.pogingen(), keys.peppers()),
                receiptStore,
                events,
                statusEvents,
                new Feed(core.database(), events, statusEvents, keys.cursors(), core.clock()),
                new DvCalls(
                        core.database(),
                        new DvCallRepository(),
                        core.clock(),
                        java.util.Map.of(
                                DvCalls.Kind.FEED,
                                settings.feed().rateLimitPerSecond(),
                                DvCalls.Kind.NOTIFICATIES,
                                settings.requestLimits().perSecond(),
                                DvCalls.Kind.BULK,
                                settings.requestLimits().bulkPerSecond(),
                                DvCalls.Kind.REPEAT,
                                settings.requestLimits().repeatPerSecond())),
                webhooks,
                new OperatorActions(
                        core.database(),
                        core.tasks(),
                        core.transitions(),
                        core.notificatieTasks(),
                        core.register(),
                        core.publicTargets(),
                        webhooks,
                        events,
                        keys.keyRewrap(),
                        keys.pepperCompromises(),
                        operatorAudit,
                        core.signals(),
                        core.settings().notifyNl().services().keySet(),
                        core.clock()),
                operatorAudit,
                templates);
    }
}
