package nl.overheid.moz.nmc;

import io.helidon.config.Config;
import java.time.Duration;
import nl.overheid.moz.nmc.acceptance.Acceptance;
import nl.overheid.moz.nmc.api.RequestLimits;
import nl.overheid.moz.nmc.db.DatabaseSettings;
import nl.overheid.moz.nmc.engine.EngineSettings;
import nl.overheid.moz.nmc.feed.FeedSettings;
import nl.overheid.moz.nmc.profiel.ProfielserviceSettings;
import nl.overheid.moz.nmc.receipts.ReconcileSchedule;
import nl.overheid.moz.nmc.retention.RetentionSettings;
import nl.overheid.moz.nmc.sending.NotifyNlSettings;
import nl.overheid.moz.nmc.webhook.WebhookSettings;

/**
 * Every subsystem's settings, read from configuration once and before anything starts, so a value the NMC
 * cannot run with refuses the start before a connection is opened ({@code Main.refusal}).
 *
 * @param engineEnabled whether this instance runs the task workers and the periodic duties ({@code engine.enabled},
 *                      default true); an instance without them serves the API only
 * @param registerCacheTtl how long a DV's register entry and the berichttypen are used before they are read again
 * @param dutyDeadline  how long one round of a periodic duty may run before it is interrupted ({@code
 *                      engine.duty-deadline}); each duty runs on its own, so one slow duty never delays another
 * @param acceptanceGroups whether single acceptances of one DV and regime are written in groups ({@code
 *                      acceptance.group-commit}, default true) and how many at most ({@code acceptance.group-max-size},
 *                      default 100)
 * @param requestLimits how many DV calls may run at once and how many per second ({@code http.*})
 */
record Settings(
        NmcSettings nmc,
        DatabaseSettings db,
        EngineSettings engine,
        boolean engineEnabled,
        NotifyNlSettings notifyNl,
        ProfielserviceSettings profielservice,
        WebhookSettings webhook,
        FeedSettings feed,
        RetentionSettings retention,
        ReconcileSchedule reconcile,
        Duration registerCacheTtl,
        Duration dutyDeadline,
        Acceptance.GroupSettings acceptanceGroups,
        RequestLimits.Settings requestLimits) {

    static Settings from(Config config) {
        NmcSettings nmc = NmcSettings.from(config);
        return new Settings(
                nmc,
                DatabaseSettings.from(config.get("db")),
                EngineSettings.from(config.get("engine")),
                config.get("engine.enabled").asBoolean().orElse(true),
                NotifyNlSettings.from(config.get("notifynl")),
                ProfielserviceSettings.from(config.get("profielservice")),
                WebhookSettings.from(config.get("webhook")),
                FeedSettings.from(config.get("feed")),
                RetentionSettings.from(config, nmc.eventLogRetention()),
                ReconcileSchedule.from(config.get("lifecycle")),
                config.get("register.cache-ttl").as(Duration.class).orElse(Duration.ofSeconds(5)),
                config.get("engine.duty-deadline").as(Duration.class).orElse(Duration.ofMinutes(1)),
                new Acceptance.GroupSettings(
                        config.get("acceptance.group-commit").asBoolean().orElse(true),
                        config.get("acceptance.group-max-size").asInt().orElse(100)),
                RequestLimits.Settings.from(config.get("http")));
    }
}
