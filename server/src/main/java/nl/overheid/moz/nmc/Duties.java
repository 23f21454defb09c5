package nl.overheid.moz.nmc;

import io.helidon.config.Config;
import java.util.List;
import nl.overheid.moz.nmc.control.ControlDuty;
import nl.overheid.moz.nmc.control.ControlRepository;
import nl.overheid.moz.nmc.control.OperationalGauges;
import nl.overheid.moz.nmc.engine.DutyRunner;
import nl.overheid.moz.nmc.engine.SendBudgetUpkeep;
import nl.overheid.moz.nmc.feed.UnacknowledgedReports;
import nl.overheid.moz.nmc.maintenance.EventPartitions;
import nl.overheid.moz.nmc.maintenance.EventRetention;
import nl.overheid.moz.nmc.maintenance.PartitionRepository;
import nl.overheid.moz.nmc.retention.NotificatieRetention;
import nl.overheid.moz.nmc.retention.RetentionRepository;
import nl.overheid.moz.nmc.sending.TemplateRefresh;

/**
 * The periodic duties, run by one {@link DutyRunner} on every instance (each is idempotent across instances): the
 * control duty, the gauges, the event log's partitions and retention, the budget windows, notification retention,
 * the KEK re-wrap and pepper compromises, the webhooks, the unacknowledged-status reports, the housekeeping of
 * the feed's rate limit, the quota and the audit, and the placeholders of NotifyNL's templates.
 */
record Duties(DutyRunner runner, OperationalGauges gauges) {

    static Duties create(Config config, Core core, Keys keys, Steps steps) {
        Settings settings = core.settings();
        ControlRepository control = new ControlRepository();
        PartitionRepository partitions = new PartitionRepository();
        OperationalGauges gauges = new OperationalGauges(
                core.database(),
                control,
                core.metrics(),
                core.clock(),
                OperationalGauges.MissingContactSettings.from(config.get("observe.geen-contactgegevens")),
                core.budget());
        DutyRunner runner = new DutyRunner(
                List.of(
                        new ControlDuty(
                                core.database(),
                                control,
                                core.tasks(),
                                core.clock(),
                                settings.nmc().finaliseMargin(),
                                core.signals(),
                                core.metrics()),
                        gauges,
                        new EventPartitions(core.database(), partitions),
                        new EventRetention(
                                core.database(),
                                partitions,
                                core.clock(),
                                settings.nmc().eventLogRetention()),
                        new SendBudgetUpkeep(core.database(), core.budget(), core.clock()),
                        new NotificatieRetention(
                                core.database(), new RetentionRepository(), core.clock(), settings.retention()),
                        keys.keyRewrap(),
                        keys.pepperCompromises(),
                        steps.webhooks(),
                        new UnacknowledgedReports(
                                core.database(),
                                steps.events(),
                                core.metrics(),
                                core.clock(),
                                settings.feed().unacknowledgedCheckInterval(),
                                settings.feed().unacknowledgedReportInterval(),
                                settings.feed().managementChannelTimeout(),
                                core.publicTargets()),
                        steps.dvCalls(),
                        steps.acceptanceQuota(),
                        steps.operatorAudit(),
                        new TemplateRefresh(steps.templates())),
                settings.engine().controlInterval(),
                settings.dutyDeadline(),
                core.engineEvents());
        gauges.runOnce(); // the first scrape reads counted values, not zeros
        return new Duties(runner, gauges);
    }
}
