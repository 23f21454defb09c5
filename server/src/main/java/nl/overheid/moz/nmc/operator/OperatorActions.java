package nl.overheid.moz.nmc.operator;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.engine.TaskKind;
import nl.overheid.moz.nmc.engine.TaskRepository;
import nl.overheid.moz.nmc.engine.WorkSignals;
import nl.overheid.moz.nmc.feed.EventRepository;
import nl.overheid.moz.nmc.lifecycle.NotificatieStatus;
import nl.overheid.moz.nmc.lifecycle.Reden;
import nl.overheid.moz.nmc.lifecycle.TransitionRefused;
import nl.overheid.moz.nmc.lifecycle.Transitions;
import nl.overheid.moz.nmc.outbound.PublicTargets;
import nl.overheid.moz.nmc.planning.NotificatieTasks;
import nl.overheid.moz.nmc.refusal.Refusal;
import nl.overheid.moz.nmc.register.Berichttype;
import nl.overheid.moz.nmc.register.Contract;
import nl.overheid.moz.nmc.register.Register;
import nl.overheid.moz.nmc.register.RegisterRules;
import nl.overheid.moz.nmc.retention.KeyRewrap;
import nl.overheid.moz.nmc.retention.PepperCompromises;
import nl.overheid.moz.nmc.webhook.Webhooks;

/**
 * The operator's actions, each through the code that owns what it changes (the task engine's repository, the
 * transition function, the register, the webhook, the epoch's repository, the re-wrap and pepper duties) and
 * each recorded in the audit — in the same transaction where the action is one transaction.
 * {@code beheerder} is who acts (the token's subject); {@code toelichting} why.
 */
public final class OperatorActions {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Database database;
    /** The NotifyNL services configured (each with its key and send budget). */
    private final java.util.Set<String> notifyServices;

    private final TaskRepository tasks;
    private final Transitions transitions;
    private final NotificatieTasks notificatieTasks;
    private final Register register;
    private final PublicTargets publicTargets;
    private final Webhooks webhooks;
    private final EventRepository events;
    private final KeyRewrap keyRewrap;
    private final PepperCompromises pepperCompromises;
    private final OperatorAudit audit;
    private final WorkSignals signals;
    private final Clock clock;

    public OperatorActions(
            Database database,
            TaskRepository tasks,
            Transitions transitions,
            NotificatieTasks notificatieTasks,
            Register register,
            PublicTargets publicTargets,
            Webhooks webhooks,
            EventRepository events,
            KeyRewrap keyRewrap,
            PepperCompromises pepperCompromises,
            OperatorAudit audit,
            WorkSignals signals,
            java.util.Set<String> notifyServices,
            Clock clock) {
        this.notifyServices = java.util.Set.copyOf(notifyServices);
        this.database = database;
        this.tasks = tasks;
        this.transitions = transitions;
        this.notificatieTasks = notificatieTasks;
        this.register = register;
        this.publicTargets = publicTargets;
        this.webhooks = webhooks;
        this.events = events;
        this.keyRewrap = keyRewrap;
        this.pepperCompromises = pepperCompromises;
        this.audit = audit;
        this.signals = signals;
        this.clock = clock;
    }

    // ---- tasks ----------------------------------------------------------------------------------------

    /** A task with the OIN of its DV (null for system tasks). */
    public record TaskInfo(TaskRepository.TaskView task, String oin) {}

    /** A page and the position of the next one (null on the last page). */
    public record Page<T>(List<T> items, Long next) {}

    /**
     * Parked tasks, oldest first; {@code oin} a DV's OIN or null. A DV that is not registered has no tasks.
     */
    public Page<TaskInfo> parkedTasks(TaskKind kind, String oin, String lastError, long after, int limit) {
        return database.inTransaction(tx -> {
            Map<UUID, String> oins = oins(tx);
            UUID dvId = null;
            if (oin != null) {
                dvId = oins.entrySet().stream()
                        .filter(e -> e.getValue().equals(oin))
                        .map(Map.Entry::getKey)
                        .findFirst()
                        .orElse(null);
                if (dvId == null) {
                    return new Page<TaskInfo>(List.of(), null);
                }
            }
            List<TaskInfo> page =
                    tasks
                            .listParked(tx, new TaskRepository.ParkedFilter(kind, dvId, lastError, after, limit + 1))
                            .stream()
                            .map(task -> new TaskInfo(task, oins.get(task.dvId())))
                            .toList();
            return page.size() > limit
                    ? new Page<>(
                            page.subList(0, limit), page.get(limit - 1).task().id())
                    : new Page<>(page, null);
        });
    }

    /** One task, open or parked; empty when it does not exist (a completed task is deleted). */
    public Optional<TaskInfo> task(long id) {
        return database.inTransaction(tx -> tasks.view(tx, id)
                .map(task -> new TaskInfo(task, task.dvId() == null ? null : oins(tx).get(task.dvId()))));
    }

    /** What a reopening did: the tasks open again, and those left alone (not parked). */
    public record Reopening(List<Long> reopened, List<Long> notParked) {}

    /** Puts the parked ones of {@code ids} back in the queue, due now; one audit row for the selection. */
    public Reopening reopen(String operator, List<Long> ids, String explanation) {
        List<TaskRepository.Reopened> reopened = database.inTransaction(tx -> {
            List<TaskRepository.Reopened> done = tasks.reopenParked(tx, ids, clock.instant());
            Set<Long> open = done.stream().map(TaskRepository.Reopened::id).collect(Collectors.toSet());
            audit.record(
                    tx,
                    operator,
                    OperatorAudit.Action.TAKEN_HEROPENEN,
                    ids.size() == 1 ? "taak " + ids.getFirst() : ids.size() + " taken",
                    explanation,
                    json(Map.of(
                            "heropend",
                            ids.stream().filter(open::contains).toList(),
                            "nietGeparkeerd",
                            ids.stream().filter(id -> !open.contains(id)).toList())));
            return done;
        });
        reopened.stream().map(TaskRepository.Reopened::kind).distinct().forEach(signals::nudge);
        Set<Long> open = reopened.stream().map(TaskRepository.Reopened::id).collect(Collectors.toSet());
        return new Reopening(
                ids.stream().filter(open::contains).toList(),
                ids.stream().filter(id -> !open.contains(id)).toList());
    }

    // ---- notifications --------------------------------------------------------------------------------

    /** A transition an operator forced. */
    public record Forced(UUID notificatie, NotificatieStatus from, NotificatieStatus to, Reden reden, int version) {}

    /**
     * Moves the notification to {@code naar} through the transition function (so an allowed pair only, one
     * event, {@code versie} + 1). A terminal status completes the notification's open work and its erasure follows as
     * for every terminal transition; any other completes its parked tasks and the open ones it does not use (receipts and
     * invalid-address reports stay), so the control duty plans what the new status needs within its interval. The audit row
     * is written in the same transaction.
     */
    public Forced forceTransition(String operator, UUID id, NotificatieStatus to, Reden asked, String explanation) {
        // The DV sees the pair: only one a path of the NMC makes. A status with one reden gets it when none is given.
        Reden reden = asked == null && to.redenen().size() == 1
                ? to.redenen().iterator().next()
                : asked;
        if (!to.admits(reden)) {
            throw new Refusal.RedenNotAdmitted(
                    to.dbValue(),
                    to.redenen().stream().map(Reden::dbValue).sorted().toList());
        }
        try {
            return database.inTransaction(tx -> {
                Transitions.Locked current =
                        transitions.lock(tx, id).orElseThrow(() -> new Refusal.NotFound("notification"));
                Transitions.Locked after = transitions.apply(tx, current, to, reden);
                if (to.terminal()) {
                    notificatieTasks.completeAll(tx, after);
                } else {
                    // The control duty plans the new status's work only for a notification without an open or parked
                    // task (seed): one from before that the new status does not use would hold it there. Open ones it
                    // uses go on (a send may be waiting out an uncertain POST, or be in its call).
                    notificatieTasks.completeForForcedStatus(tx, after, to);
                }
                Map<String, Object> details = new LinkedHashMap<>();
                details.put("van", current.status().dbValue());
                details.put("naar", to.dbValue());
                details.put("reden", reden == null ? null : reden.dbValue());
                details.put("versie", after.version());
                audit.record(
                        tx,
                        operator,
                        OperatorAudit.Action.OVERGANG_FORCEREN,
                        "notificatie " + id,
                        explanation,
                        json(details));
                return new Forced(id, current.status(), to, reden, after.version());
            });
        } catch (TransitionRefused refused) {
            throw new Refusal.TransitionNotAllowed(
                    refused.from().dbValue(), refused.to().dbValue());
        }
    }

    // ---- the register ---------------------------------------------------------------------------------

    /** What an operator registers for a DV; a null duration or count takes the schema's default. */
    public record DvInput(
            String oin,
            String naam,
            int quotaPerMinute,
            List<String> berichttypen,
            URI webhookUrl,
            Integer webhookMaxFailures,
            Duration acknowledgementPeriod,
            Duration maxCursorAge,
            URI managementChannel,
            String profielNaam,
            List<String> identificatieTypen) {}

    public List<Register.Registration> dienstverleners() {
        return database.inTransaction(tx -> register.registrations(tx, null));
    }

    public Optional<Register.Registration> dienstverlener(String oin) {
        return database.inTransaction(
                tx -> register.registrations(tx, oin).stream().findFirst());
    }

    /** The DV's webhook state, if it has a webhook. */
    public Optional<Webhooks.State> webhook(UUID dvId) {
        return webhooks.state(dvId);
    }

    /**
     * Registers or replaces a DV after checking what the NMC must be able to use: existing berichttypen, a
     * webhook and management channel the webhook rules allow, positive periods.
     */
    public Register.Registration putDienstverlener(String operator, DvInput input, String explanation) {
        List<Refusal.Invalid> errors = new ArrayList<>();
        webhookError("/webhookUrl", input.webhookUrl()).ifPresent(errors::add);
        webhookError("/beheerkanaal", input.managementChannel()).ifPresent(errors::add);
        positive("/bevestigingstermijn", input.acknowledgementPeriod()).ifPresent(errors::add);
        positive("/maxCursorleeftijd", input.maxCursorAge()).ifPresent(errors::add);
        errors.addAll(RegisterRules.dienstverlener(input.profielNaam(), input.identificatieTypen()));
        return database.inTransaction(tx -> {
            Set<String> known =
                    register.allBerichttypen(tx).stream().map(Berichttype::code).collect(Collectors.toSet());
            for (int i = 0; i < input.berichttypen().size(); i++) {
                if (!known.contains(input.berichttypen().get(i))) {
                    errors.add(new Refusal.Invalid("/berichttypen/" + i, "unknown", "Dit berichttype bestaat niet."));
                }
            }
            if (!errors.isEmpty()) {
                throw new Refusal.InvalidRegistration(errors);
            }
            Contract contract = new Contract(
                    input.webhookUrl(),
                    input.webhookMaxFailures() == null
                            ? Contract.DEFAULT_WEBHOOK_MAX_FAILURES
                            : input.webhookMaxFailures(),
                    input.acknowledgementPeriod() == null
                            ? Contract.DEFAULT_ACKNOWLEDGEMENT_PERIOD
                            : input.acknowledgementPeriod(),
                    input.maxCursorAge() == null ? Contract.DEFAULT_MAX_CURSOR_AGE : input.maxCursorAge(),
                    input.managementChannel());
            List<String> types =
                    input.berichttypen().stream().distinct().sorted().toList();
            Register.DvSeed seed = new Register.DvSeed(
                    input.oin(),
                    input.naam(),
                    types,
                    input.quotaPerMinute(),
                    contract,
                    input.profielNaam(),
                    input.identificatieTypen());
            register.put(tx, seed);
            webhooks.plan(tx);
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("naam", input.naam());
            details.put("quotumPerMinuut", input.quotaPerMinute());
            details.put("berichttypen", types);
            details.put(
                    "webhookUrl",
                    contract.webhookUrl() == null ? null : contract.webhookUrl().toString());
            details.put("webhookMaxMislukkingen", contract.webhookMaxFailures());
            details.put("bevestigingstermijn", contract.acknowledgementPeriod().toString());
            details.put("maxCursorleeftijd", contract.maxCursorAge().toString());
            details.put(
                    "beheerkanaal",
                    contract.managementChannel() == null
                            ? null
                            : contract.managementChannel().toString());
            details.put("profielDienstverlenerNaam", seed.profielNaam());
            details.put("identificatieTypen", seed.identificatieTypen());
            audit.record(
                    tx,
                    operator,
                    OperatorAudit.Action.DIENSTVERLENER_VASTLEGGEN,
                    "dienstverlener " + input.oin(),
                    explanation,
                    json(details));
            return register.registrations(tx, input.oin()).getFirst();
        });
    }

    public List<Berichttype> berichttypen() {
        return database.inTransaction(register::allBerichttypen);
    }

    /** Registers or replaces a berichttype; its validity, if any, must be positive. */
    public Berichttype putBerichttype(String operator, Berichttype type, String explanation) {
        List<Refusal.Invalid> errors = new ArrayList<>();
        positive("/standaardGeldigheid", type.defaultValidity()).ifPresent(errors::add);
        errors.addAll(RegisterRules.berichttype(type.processingActivity(), type.profielDienstNaam()));
        if (!notifyServices.contains(type.notifyService())) {
            // No key and no send budget: its sends would never be claimed (and the next start is refused).
            errors.add(new Refusal.Invalid(
                    "/notifyService",
                    "unknown",
                    "Deze NotifyNL-service is niet ingericht (ingericht: "
                            + String.join(", ", new java.util.TreeSet<>(notifyServices)) + ")."));
        }
        if (!errors.isEmpty()) {
            throw new Refusal.InvalidRegistration(errors);
        }
        database.inTransactionDo(tx -> {
            register.put(tx, type);
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("templateId", type.notifyTemplateId().toString());
            details.put("notifyService", type.notifyService());
            details.put(
                    "standaardGeldigheid",
                    type.defaultValidity() == null
                            ? null
                            : type.defaultValidity().toString());
            details.put("maxPogingen", type.maxFailures());
            details.put("verwerkingsactiviteit", type.processingActivity());
            details.put("profielDienstNaam", type.profielDienstNaam());
            audit.record(
                    tx,
                    operator,
                    OperatorAudit.Action.BERICHTTYPE_VASTLEGGEN,
                    "berichttype " + type.code(),
                    explanation,
                    json(details));
        });
        return type;
    }

    /** Resumes the DV's paused webhook now, as the DV itself can. */
    public Webhooks.State resumeWebhook(String operator, String oin, String explanation) {
        Register.Registration dv = dienstverlener(oin).orElseThrow(() -> new Refusal.NotFound("DV"));
        // the audit row in the resume's own transaction: a resume and its record commit together, or neither
        return webhooks.resume(
                        dv.id(),
                        (tx, state) -> audit.record(
                                tx,
                                operator,
                                OperatorAudit.Action.WEBHOOK_HERVATTEN,
                                "dienstverlener " + oin,
                                explanation,
                                json(Map.of("mislukkingen", state.mislukkingen()))))
                .orElseThrow(() -> new Refusal.NotFound("webhook"));
    }

    // ---- keys and the epoch ---------------------------------------------------------------------------

    public int clusterEpoch() {
        return database.inTransaction(events::clusterEpoch);
    }

    /** Raises the cluster epoch by one if it is {@code expected} now (the operator's confirmation). */
    public int raiseClusterEpoch(String operator, int expected, String explanation) {
        return database.inTransaction(tx -> {
            int raised = events.raiseClusterEpoch(tx, expected)
                    .orElseThrow(() -> new Refusal.EpochMismatch(events.clusterEpoch(tx)));
            audit.record(
                    tx,
                    operator,
                    OperatorAudit.Action.CLUSTER_EPOCH_VERHOGEN,
                    "cluster",
                    explanation,
                    json(Map.of("van", expected, "naar", raised)));
            return raised;
        });
    }

    /** What a re-wrap round did. */
    public record Rewrap(int rewrapped, int currentVersion, Map<Integer, Long> rowsPerVersion) {}

    /** Runs one round of the KEK re-wrap now (it also runs as a duty). */
    public Rewrap rewrap(String operator, String explanation) {
        keyRewrap.retryUnreadable(); // an operator who restored a damaged row has it tried again
        int done = keyRewrap.runOnce();
        Map<Integer, Long> perVersion = keyRewrap.rowsPerVersion();
        Rewrap result = new Rewrap(done, keyRewrap.currentVersion(), perVersion);
        audit.record(
                operator,
                OperatorAudit.Action.KEK_HERWRAPPEN,
                "kek",
                explanation,
                json(Map.of("herwrapt", done, "huidigeVersie", result.currentVersion(), "rijenPerVersie", perVersion)));
        return result;
    }

    /**
     * Marks a pepper version compromised (refused when no other version could take over), with its audit in the same
     * transaction.
     */
    public void markPepperCompromised(
            String operator, PepperCompromises.Purpose purpose, int version, String explanation) {
        try {
            database.inTransactionDo(tx -> {
                pepperCompromises.markCompromised(tx, purpose, version);
                audit.record(
                        tx,
                        operator,
                        OperatorAudit.Action.PEPPER_COMPROMITTEREN,
                        "pepper " + purpose.dbValue() + " " + version,
                        explanation,
                        json(Map.of("doel", purpose.dbValue(), "versie", version)));
            });
        } catch (PepperCompromises.Refused refused) {
            throw new Refusal.PepperRefused(refused.getMessage());
        }
        pepperCompromises.marked(purpose, version);
    }

    // ---- helpers --------------------------------------------------------------------------------------

    private Map<UUID, String> oins(io.helidon.dbclient.DbTransaction tx) {
        return register.registrations(tx, null).stream()
                .collect(Collectors.toMap(Register.Registration::id, r -> r.dv().oin()));
    }

    private Optional<Refusal.Invalid> webhookError(String field, URI url) {
        if (url == null) {
            return Optional.empty();
        }
        return publicTargets
                .refusedUrl(url)
                .map(code -> new Refusal.Invalid(
                        field,
                        code,
                        switch (code) {
                            case "url-not-https" -> "Moet een https-URL zijn.";
                            case "address-not-public" -> "Moet naar een openbaar adres wijzen.";
                            default -> "Is geen bruikbare absolute URL.";
                        }));
    }

    private static Optional<Refusal.Invalid> positive(String field, Duration duration) {
        return duration != null && (duration.isZero() || duration.isNegative())
                ? Optional.of(new Refusal.Invalid(field, "minimum", "Moet een positieve duur zijn."))
                : Optional.empty();
    }

    private static String json(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write audit details", e);
        }
    }
}
