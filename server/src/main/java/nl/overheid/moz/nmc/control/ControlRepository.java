package nl.overheid.moz.nmc.control;

import io.helidon.dbclient.DbTransaction;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import nl.overheid.moz.nmc.db.DbTypes;
import nl.overheid.moz.nmc.db.Statement;
import nl.overheid.moz.nmc.lifecycle.NotificatieRepository;

/**
 * The SQL of control: the repairs of {@link ControlDuty} (inserts of missing {@code taak} rows, guarded by the
 * unique indexes) and the counts of {@link OperationalGauges} (tasks, notifications, per DV), each bounded by
 * an index.
 */
public final class ControlRepository {

    /*
     * A live notification without a task of its own lifecycle. Receipt tasks and invalid-address reports do not
     * count: a report can wait beside a verzonden or bezorgd notification (every bounce is reported) and must
     * not hide a lost reconcile, send or finalise task.
     */
    private static final String NO_TASK = """
            NOT EXISTS (SELECT 1 FROM taak t WHERE t.notificatie = n.id AND t.soort NOT IN ('verwerken', 'ongeldig-melden'))
            """;

    private static final Statement TASK_PLAN_MISSING_SEND =
            Statement.named("taskPlanMissingSend", """
            INSERT INTO taak (soort, dv_id, notificatie, due, trace_id, budget)
            SELECT 'verzenden', n.dv_id, n.id, :now, n.trace_id, b.notify_service
              FROM notificatie n
              JOIN berichttype b ON b.code = n.berichttype
             WHERE n.status IN ('aangenomen', 'in-verzending') AND n.terminaal_sinds IS NULL AND %s
            ON CONFLICT DO NOTHING
            """.formatted(NO_TASK));

    /* The database's own clock, as it runs (not the transaction's start). */
    private static final Statement DATABASE_NOW = Statement.named("databaseNow", "SELECT clock_timestamp() AS nu");

    private static final Statement TASK_PLAN_MISSING_AFTER_SENT =
            Statement.named("taskPlanMissingAfterSent", """
            INSERT INTO taak (soort, dv_id, notificatie, poging, due, trace_id, budget)
            SELECT CASE WHEN running.id IS NULL THEN 'verzenden' ELSE 'reconcilieren' END,
                   n.dv_id, n.id, running.id, :now, n.trace_id,
                   CASE WHEN running.id IS NULL THEN b.notify_service
                        ELSE coalesce(running.notify_service, b.notify_service) END
              FROM notificatie n
              JOIN berichttype b ON b.code = n.berichttype
              LEFT JOIN LATERAL (SELECT p.id, p.notify_service FROM poging p
                                  WHERE p.notificatie = n.id AND p.status IN ('verzonden', 'onbekend')
                                  ORDER BY p.nummer DESC LIMIT 1) running ON true
             WHERE n.status = 'verzonden' AND n.terminaal_sinds IS NULL AND %s
            ON CONFLICT DO NOTHING
            """.formatted(NO_TASK));

    private static final Statement TASK_PLAN_MISSING_FINALISE =
            Statement.named("taskPlanMissingFinalise", """
            INSERT INTO taak (soort, dv_id, notificatie, due, trace_id)
            SELECT 'vaststellen', n.dv_id, n.id,
                   coalesce((SELECT max(p.bezorgd_op) FROM poging p WHERE p.notificatie = n.id), :now)
                     + CAST(:margin AS interval),
                   n.trace_id
              FROM notificatie n
             WHERE n.status = 'bezorgd' AND n.terminaal_sinds IS NULL AND %s
            ON CONFLICT DO NOTHING
            """.formatted(NO_TASK));

    private static final Statement TASK_PLAN_MISSING_RECEIPTS = Statement.named("taskPlanMissingReceipts", """
            INSERT INTO taak (soort, dv_id, notificatie, poging, ontvangst, ontvangst_completed_at, due, trace_id)
            SELECT 'verwerken', n.dv_id, n.id, o.poging, o.id, o.completed_at, :now, n.trace_id
              FROM ontvangst o
              JOIN poging p ON p.id = o.poging
              JOIN notificatie n ON n.id = p.notificatie
             WHERE o.verwerkt_op IS NULL
               AND NOT EXISTS (SELECT 1 FROM taak t WHERE t.soort = 'verwerken' AND t.ontvangst = o.id)
            ON CONFLICT DO NOTHING
            """);

    private static final Statement TASKS_FAILED_BY_KIND = Statement.named("tasksFailedByKind", """
            SELECT soort, count(*) AS n FROM taak WHERE status = 'mislukt' GROUP BY soort
            """);

    /* A parked send refused for its setup whose notification's geldig_tot has passed (strictly: Transitions.expired). */
    private static final Statement PARKED_SETUP_SENDS_EXPIRED = Statement.named("parkedSetupSendsExpired", """
            SELECT t.id
              FROM taak t
              JOIN notificatie n ON n.id = t.notificatie
             WHERE t.status = 'mislukt' AND t.soort = 'verzenden' AND t.laatste_fout LIKE 'notifynl-%'
               AND n.terminaal_sinds IS NULL AND n.geldig_tot < :now
             ORDER BY t.id
             LIMIT :limit
            """);

    /* Parked sends whose last error is one of NotifyNL's setup refusals (the classes the NMC writes, notifynl-…). */
    private static final Statement PARKED_SETUP_ERRORS = Statement.named("parkedSetupErrors", """
            SELECT n.berichttype, t.budget, t.laatste_fout, count(*) AS n
              FROM taak t
              JOIN notificatie n ON n.id = t.notificatie
             WHERE t.status = 'mislukt' AND t.soort = 'verzenden' AND t.laatste_fout LIKE 'notifynl-%'
             GROUP BY n.berichttype, t.budget, t.laatste_fout
            """);

    private static final Statement TASKS_DUE_BY_KIND = Statement.named("tasksDueByKind", """
            SELECT soort, count(*) AS n, min(due) AS oudste,
                   count(*) FILTER (WHERE lease_tot < :now) AS lease_verlopen
              FROM taak WHERE status = 'open' AND due <= :now GROUP BY soort
            """);

    private static final Statement SEND_BACKLOG_BY_DV = Statement.named("sendBacklogByDv", """
            SELECT d.oin, count(t.id) AS n, min(t.due) AS oudste
              FROM dienstverlener d
              LEFT JOIN taak t ON t.dv_id = d.id AND t.soort = 'verzenden' AND t.status = 'open' AND t.due <= :now
             GROUP BY d.oin
            """);

    /*
     * Per registered DV, the oldest event after its acknowledgement (a position of an earlier cluster epoch means
     * nothing: then its first event), through the feed's index ({@link NotificatieRepository#eventsOfDv}): one
     * probe per DV.
     */
    private static final Statement FEED_LAG_BY_DV =
            Statement.named("feedLagByDv", """
            SELECT d.oin,
                   (SELECT e.tijdstip FROM event e
                     WHERE %1$s
                       AND (e.transactie_id, e.id) >
                           (CASE WHEN b.cluster_epoch = (SELECT epoch FROM cluster_epoch) THEN b.transactie_id
                                 ELSE CAST('0' AS xid8) END,
                            CASE WHEN b.cluster_epoch = (SELECT epoch FROM cluster_epoch) THEN b.event_id ELSE 0 END)
                     ORDER BY e.transactie_id, e.id LIMIT 1) AS oudste
              FROM dienstverlener d
              LEFT JOIN bevestiging b ON b.dv_id = d.id
            """.formatted(NotificatieRepository.eventsOfDv("e", "d.id")));

    /* Per DV with a webhook: the oldest event after its delivery position, and whether it is paused. */
    private static final Statement WEBHOOK_LAG_BY_DV =
            Statement.named("webhookLagByDv", """
            SELECT d.oin, COALESCE(w.pauzes, 0) > 0 AS gepauzeerd,
                   (SELECT e.tijdstip FROM event e
                     WHERE %1$s
                       AND (e.transactie_id, e.id) >
                           (COALESCE(w.transactie_id, CAST('0' AS xid8)), COALESCE(w.event_id, 0))
                     ORDER BY e.transactie_id, e.id LIMIT 1) AS oudste
              FROM dienstverlener d
              LEFT JOIN webhookpositie w ON w.dv_id = d.id
             WHERE d.webhook_url IS NOT NULL
            """.formatted(NotificatieRepository.eventsOfDv("e", "d.id")));

    /* The oldest report of an invalid address still waiting (planned at ongeldig_gemeld_op, the NMC's clock). */
    private static final Statement INVALID_REPORT_OLDEST_WAITING = Statement.named("invalidReportOldestWaiting", """
            SELECT min(p.ongeldig_gemeld_op) AS oudste
              FROM taak t JOIN poging p ON p.id = t.poging
             WHERE t.soort = 'ongeldig-melden' AND t.status = 'open'
            """);

    /*
     * The open send task planned longest ago: a send postponed again and again (a party failing for it), which only
     * its notification's geldig_tot ends (seed 000: "het wachten wordt alleen door geldig_tot begrensd"), and never
     * when it has none. Its age on the database's clock, which stamped aangemaakt_op. Bounded by the open tasks'
     * partial index; ordering reads the open send tasks, as the backlog's count does.
     */
    private static final Statement SEND_OLDEST_OPEN = Statement.named("sendOldestOpen", """
            SELECT t.id, t.notificatie, t.laatste_fout,
                   coalesce(CAST(t.payload->>'uitstel' AS int), 0) AS uitstel,
                   extract(epoch FROM now() - t.aangemaakt_op) AS leeftijd
              FROM taak t
             WHERE t.soort = 'verzenden' AND t.status = 'open'
             ORDER BY t.aangemaakt_op
             LIMIT 1
            """);

    private static final Statement NOTIFICATIONS_STATUS_UNKNOWN = Statement.named("notificationsStatusUnknown", """
            SELECT count(*) AS n FROM notificatie WHERE bezorgstatus_onbekend
            """);

    private static final Statement MISSING_CONTACT_BY_DV = Statement.named("missingContactByDv", """
            SELECT d.oin, count(n.id) AS terminaal,
                   count(n.id) FILTER (WHERE n.laatste_reden = 'geen-contactgegevens') AS geen
              FROM dienstverlener d
              LEFT JOIN notificatie n ON n.dv_id = d.id AND n.regie = 'centraal' AND n.terminaal_sinds >= :since
             GROUP BY d.oin
            """);

    /** The open tasks of one kind that are due: how many, the oldest due time and how many leases expired. */
    record DueTasks(String kind, long count, Instant oldest, long leaseExpired) {}

    /** The open send task planned longest ago: its notification, last error class (or null) and postponements. */
    record OldestOpenSend(
            long task, java.util.UUID notification, String lastError, int postponements, double ageSeconds) {}

    /** One DV's due send tasks: how many and the oldest due time (null without any). */
    record SendBacklog(String oin, long count, Instant oldest) {}

    /** Parked send tasks of one berichttype and NotifyNL service with one setup error class. */
    record ParkedSetupErrors(String berichttype, String service, String errorClass, long count) {}

    /** One DV's oldest event not yet acknowledged (null: none). */
    record FeedLag(String oin, Instant oldest) {}

    /** One DV's webhook: the oldest event not yet delivered (null: none) and whether it is paused. */
    record WebhookLag(String oin, Instant oldest, boolean paused) {}

    /** One DV's centralised notifications terminal since the window's start; how many ended geen-contactgegevens. */
    record MissingContact(String oin, long terminal, long missing) {}

    /** Plans a send task for every live notification before sending that has none; returns how many. */
    long planMissingSend(DbTransaction tx, Instant now) {
        return TASK_PLAN_MISSING_SEND.dml(tx).addParam("now", now).execute();
    }

    /** At most {@code limit} parked setup-refused sends whose notification's geldig_tot has passed. */
    List<Long> parkedSetupSendsExpired(DbTransaction tx, Instant now, int limit) {
        return PARKED_SETUP_SENDS_EXPIRED
                .query(tx)
                .addParam("now", now)
                .addParam("limit", limit)
                .execute()
                .map(row -> DbTypes.longValue(row, "id"))
                .toList();
    }

    /** Plans a reconcile task (an attempt running) or a send task for every verzonden notification without a task. */
    long planMissingAfterSent(DbTransaction tx, Instant now) {
        return TASK_PLAN_MISSING_AFTER_SENT.dml(tx).addParam("now", now).execute();
    }

    /** Plans the finalise task of every bezorgd notification without one, due {@code margin} after its proof. */
    long planMissingFinalise(DbTransaction tx, Instant now, Duration margin) {
        return TASK_PLAN_MISSING_FINALISE
                .dml(tx)
                .addParam("now", now)
                .addParam("margin", margin)
                .execute();
    }

    /** Plans a receipt task for every stored, unprocessed receipt without its own (a backstop: a lost task). */
    long planMissingReceipts(DbTransaction tx, Instant now) {
        return TASK_PLAN_MISSING_RECEIPTS.dml(tx).addParam("now", now).execute();
    }

    /** The parked ({@code mislukt}) tasks per kind. */
    Map<String, Long> failedTasksByKind(DbTransaction tx) {
        return TASKS_FAILED_BY_KIND
                .query(tx)
                .execute()
                .collect(Collectors.toMap(row -> DbTypes.text(row, "soort"), row -> DbTypes.longValue(row, "n")));
    }

    List<ParkedSetupErrors> parkedSetupErrors(DbTransaction tx) {
        return PARKED_SETUP_ERRORS
                .query(tx)
                .execute()
                .map(row -> new ParkedSetupErrors(
                        DbTypes.text(row, "berichttype"),
                        DbTypes.text(row, "budget"),
                        DbTypes.text(row, "laatste_fout"),
                        DbTypes.longValue(row, "n")))
                .toList();
    }

    List<DueTasks> dueTasksByKind(DbTransaction tx, Instant now) {
        return TASKS_DUE_BY_KIND
                .query(tx)
                .addParam("now", now)
                .execute()
                .map(row -> new DueTasks(
                        DbTypes.text(row, "soort"),
                        DbTypes.longValue(row, "n"),
                        DbTypes.instant(row, "oudste"),
                        DbTypes.longValue(row, "lease_verlopen")))
                .toList();
    }

    /** The due send tasks of every registered DV. */
    List<SendBacklog> sendBacklogByDv(DbTransaction tx, Instant now) {
        return SEND_BACKLOG_BY_DV
                .query(tx)
                .addParam("now", now)
                .execute()
                .map(row -> new SendBacklog(
                        DbTypes.text(row, "oin"), DbTypes.longValue(row, "n"), DbTypes.instant(row, "oudste")))
                .toList();
    }

    List<FeedLag> feedLagByDv(DbTransaction tx) {
        return FEED_LAG_BY_DV
                .query(tx)
                .execute()
                .map(row -> new FeedLag(DbTypes.text(row, "oin"), DbTypes.instant(row, "oudste")))
                .toList();
    }

    List<WebhookLag> webhookLagByDv(DbTransaction tx) {
        return WEBHOOK_LAG_BY_DV
                .query(tx)
                .execute()
                .map(row -> new WebhookLag(
                        DbTypes.text(row, "oin"),
                        DbTypes.instant(row, "oudste"),
                        Boolean.TRUE.equals(row.column("gepauzeerd").get(Boolean.class))))
                .toList();
    }

    /** When the oldest invalid-address report still waiting was planned; null when none waits. */
    Instant invalidReportOldestWaiting(DbTransaction tx) {
        return INVALID_REPORT_OLDEST_WAITING
                .get(tx)
                .execute()
                .map(row -> DbTypes.instant(row, "oudste"))
                .orElse(null);
    }

    /** The database server's clock now. */
    Instant databaseNow(DbTransaction tx) {
        return DATABASE_NOW
                .get(tx)
                .execute()
                .map(row -> DbTypes.instant(row, "nu"))
                .orElseThrow();
    }

    /** The open send task planned longest ago, if any. */
    java.util.Optional<OldestOpenSend> oldestOpenSend(DbTransaction tx) {
        return SEND_OLDEST_OPEN
                .get(tx)
                .execute()
                .map(row -> new OldestOpenSend(
                        DbTypes.longValue(row, "id"),
                        DbTypes.uuid(row, "notificatie"),
                        DbTypes.text(row, "laatste_fout"),
                        DbTypes.integer(row, "uitstel"),
                        Math.max(0, row.column("leeftijd").get(Number.class).doubleValue())));
    }

    /** How many notifications are bezorgstatus-onbekend. */
    long statusUnknown(DbTransaction tx) {
        return NOTIFICATIONS_STATUS_UNKNOWN
                .get(tx)
                .execute()
                .map(row -> DbTypes.longValue(row, "n"))
                .orElse(0L);
    }

    /** Per registered DV, its centralised notifications terminal since {@code since}. */
    List<MissingContact> missingContactByDv(DbTransaction tx, Instant since) {
        return MISSING_CONTACT_BY_DV
                .query(tx)
                .addParam("since", since)
                .execute()
                .map(row -> new MissingContact(
                        DbTypes.text(row, "oin"), DbTypes.longValue(row, "terminaal"), DbTypes.longValue(row, "geen")))
                .toList();
    }
}
