package nl.overheid.moz.nmc.sending;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.helidon.dbclient.DbTransaction;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntFunction;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.engine.OwnedTasks;
import nl.overheid.moz.nmc.engine.SendBudget;
import nl.overheid.moz.nmc.engine.SubjectLock;
import nl.overheid.moz.nmc.engine.Task;
import nl.overheid.moz.nmc.engine.TaskHandler;
import nl.overheid.moz.nmc.engine.TaskKind;
import nl.overheid.moz.nmc.engine.TaskRepository;
import nl.overheid.moz.nmc.engine.UnusedTokens;
import nl.overheid.moz.nmc.ldv.DataSubjects;
import nl.overheid.moz.nmc.ldv.ProcessingLog;
import nl.overheid.moz.nmc.lifecycle.NotificatieRepository;
import nl.overheid.moz.nmc.lifecycle.NotificatieStatus;
import nl.overheid.moz.nmc.lifecycle.Poging;
import nl.overheid.moz.nmc.lifecycle.PogingRepository;
import nl.overheid.moz.nmc.lifecycle.PogingStatus;
import nl.overheid.moz.nmc.lifecycle.Reden;
import nl.overheid.moz.nmc.lifecycle.Transitions;
import nl.overheid.moz.nmc.observe.NmcMetrics;
import nl.overheid.moz.nmc.planning.HandlerSupport;
import nl.overheid.moz.nmc.planning.NotificatieTasks;
import nl.overheid.moz.nmc.privacy.Envelope;
import nl.overheid.moz.nmc.profiel.AddressChoice;
import nl.overheid.moz.nmc.profiel.Identification;
import nl.overheid.moz.nmc.profiel.Profielservice;
import nl.overheid.moz.nmc.profiel.ProfielserviceSettings;
import nl.overheid.moz.nmc.register.Berichttype;
import nl.overheid.moz.nmc.register.Register;
import nl.overheid.moz.nmc.trace.FailedCalls;
import nl.overheid.moz.nmc.trace.Span;

/**
 * The send pipeline (step 2): the {@code verzenden} task. It writes only {@code taak} and {@code poging}
 * (the budget is taken by the claim) and changes status only through {@link Transitions}.
 *
 * <ol>
 *   <li>Start transaction (notification lock, then the task with its claim epoch): aangenomen →
 *       in-verzending with attempt 1, or verzonden → verzonden with attempt 2 for a resend; a notification
 *       that is already bezorgd or terminal completes the task without sending (a late delivered cancels a
 *       resend); geldig_tot passed → verlopen; a resend planned when attempt 2 has already failed ends the
 *       notification by that failure. A re-claim after an expired lease or a postponement reuses the planned
 *       attempt.</li>
 *   <li>Execution: an attempt that may already be at NotifyNL is first searched by reference; no new call
 *       starts after geldig_tot; then decrypt, in the centralised regime look the address up at the
 *       Profielservice, call NotifyNL. Every external call is preceded by its LDV record, and happens only after
 *       the store acknowledged it; a call that then fails gets an ERROR record. The lease is extended right
 *       before every external call (the LDV store's write too), and a claim that lost its task stops there; a
 *       failure of the Profielservice, the LDV store or NotifyNL postpones the task without counting an attempt,
 *       and so does a data key under a KEK this instance does not hold (a rolling deploy adding one).</li>
 *   <li>Commit transaction: the same two locks (a stale claim writes nothing), then the outcome.</li>
 * </ol>
 *
 * <p>Every call goes to the NotifyNL service of the notification's berichttype, with that service's key; the
 * claim took the task's token from that service's budget (the task's {@code budget}, planned so). A task that
 * ends without a POST gives its token back ({@link UnusedTokens}); a POST keeps it whatever the answer.
 *
 * <p>NotifyNL's answers ({@link NotifyNlAnswers}, ARCHITECTURE §7.4 "NotifyNL's answers"): only a refusal of the address ends
 * the notification {@code niet-bezorgbaar}. A refusal of the setup ({@link SetupError}) is never blamed on it: the
 * task is postponed with backoff, and after {@code notifynl.setup-error-max-tries} such refusals over at least {@code
 * notifynl.setup-error-min-span} parked as {@code mislukt} under the error's class for an operator, who fixes the
 * setup and reopens it; each is counted per
 * berichttype and service and logged as one WARNING. A refused key or service (401, 403) is never parked: ADR 0024
 * counts it against the call, so it is tried again until geldig_tot, like a 5xx. The daily limit closes the service's sending budget until its
 * window has passed ({@link DailyLimitWindow}) and postpones the send until then, without counting anything against
 * the notification: no claim of that budget takes a token meanwhile, and a send claimed before the closure is
 * postponed without a call or an LDV record. The per-minute rate limit, 5xx and the like postpone with backoff.
 */
public final class SendPipeline implements TaskHandler {

    private final NmcMetrics metrics;

    private static final Logger LOG = Logger.getLogger(SendPipeline.class.getName());
    private static final String SEND = "NotifyNL POST /v2/notifications/email";

    private final OwnedTasks owned;
    private final TaskRepository tasks;
    private final NotificatieTasks notificatieTasks;
    private final PogingRepository pogingen;
    private final NotificatieRepository notificaties;
    private final Transitions transitions;
    private final Register register;
    private final Envelope envelope;
    private final NotifyNlServices notifyNl;
    private final UnusedTokens unusedTokens;
    private final Profielservice profielservice;
    private final ProfielserviceSettings profielSettings;
    private final Duration uncertainSendWait;
    private final ProcessingLog ldv;
    private final Clock clock;
    private final Duration lease;
    private final IntFunction<Duration> backoff;
    private final Duration firstReconciliation;
    private final SendBudget sendBudget;
    private final int setupErrorMaxTries;
    private final Duration setupErrorMinSpan;
    private final DailyLimitWindow dailyLimit;
    private final Templates templates;
    private final ObjectMapper mapper = new ObjectMapper();

    /** The counter of a send task's setup refusals (in its payload; cleared when an operator reopens it). */
    static final String SETUP_ERRORS = "instelfouten";
    /** The same for a refused key or service: never parked, so a count of its own (it must not park the others). */
    static final String CALL_REFUSALS = "sleutelfouten";
    /** The error class of a send postponed for the daily limit of its service. */
    public static final String DAILY_LIMIT = "notifynl-daglimiet";

    /**
     * @param firstReconciliation when an accepted attempt is first looked up at NotifyNL
     * @param budget              the send budget, closed for a service whose daily limit is used up
     * @param settings            NotifyNL's: how many setup refusals before a send is parked, the daily limit's window
     * @param templates           the templates' placeholders, asked again at once after "Missing personalisation"
     */
    public SendPipeline(
            HandlerSupport support,
            Register register,
            Envelope envelope,
            NotifyNlServices notifyNl,
            UnusedTokens unusedTokens,
            Profielservice profielservice,
            ProfielserviceSettings profielSettings,
            Duration firstReconciliation,
            SendBudget budget,
            NotifyNlSettings settings,
            Templates templates) {
        this.metrics = support.metrics();
        this.owned = support.owned();
        this.tasks = support.tasks();
        this.notificatieTasks = support.notificatieTasks();
        this.pogingen = support.pogingen();
        this.notificaties = support.notificaties();
        this.transitions = support.transitions();
        this.register = register;
        this.envelope = envelope;
        this.notifyNl = notifyNl;
        this.unusedTokens = unusedTokens;
        this.profielservice = profielservice;
        this.profielSettings = profielSettings;
        this.ldv = support.ldv();
        this.clock = support.clock();
        this.lease = support.lease();
        this.backoff = support.backoff();
        this.firstReconciliation = firstReconciliation;
        this.sendBudget = budget;
        this.setupErrorMaxTries = settings.setupErrorMaxTries();
        this.setupErrorMinSpan = settings.setupErrorMinSpan();
        this.dailyLimit = settings.dailyLimit();
        this.uncertainSendWait = settings.uncertainSendWait();
        this.templates = templates;
    }

    @Override
    public TaskKind kind() {
        return TaskKind.VERZENDEN;
    }

    @Override
    public Budget budget() {
        return Budget.SENDING;
    }

    @Override
    public SubjectLock<Transitions.Locked> subjectLock() {
        return notificatieTasks.lock();
    }

    @Override
    public void execute(Task task) throws Exception {
        AtomicBoolean posted = new AtomicBoolean();
        try {
            send(task, posted);
        } finally {
            if (!posted.get()) {
                giveBack(task);
            }
        }
    }

    /** The token of a send that made no POST goes back; failing that, the budget is merely under-used. */
    private void giveBack(Task task) {
        try {
            unusedTokens.giveBack(task, budget());
        } catch (RuntimeException notGiven) {
            LOG.fine(() -> "the unused token of task " + task.id() + " was not given back: " + notGiven.getMessage());
        }
    }

    /** The send; {@code posted} is set just before the POST to NotifyNL (from then on the token is spent). */
    private void send(Task task, AtomicBoolean posted) throws Exception {
        Job job = owned.computeUnderLocks(task, subjectLock(), (tx, n) -> start(tx, task, n))
                .orElse(null);
        if (job == null) {
            return;
        }
        if (job.poging().requested()) {
            // An earlier claim (crashed, lease lost, or its call failed uncertainly) may have reached NotifyNL.
            Optional<NotifyNl.SendResult> known = lookUp(task, job);
            if (known.isPresent()) {
                commit(task, job, known.get());
                return;
            }
            if (!job.service().equals(job.berichttype().notifyService())) {
                // Not at the service it was POSTed with, and its berichttype moved since: the new start goes to the
                // berichttype's service (its template belongs there), under that service's budget.
                owned.underLocks(task, subjectLock(), (tx, n) -> {
                    pogingen.clearRequested(tx, job.poging().id());
                    planAgainUnder(tx, task, n, job.berichttype().notifyService());
                });
                return;
            }
        }
        // Certainly not at NotifyNL: a new call is a new start, and no attempt starts after geldig_tot (§7.5).
        if (endedExpired(task, job)) {
            return;
        }
        if (job.sealed().wrappedDataKey() == null) {
            // Erased (a late receipt re-opened it after its erasure): nothing can be sent any more.
            owned.underLocks(task, subjectLock(), (tx, n) -> endErased(tx, task, job, n));
            return;
        }
        if (!envelope.holdsKek(job.sealed().kekVersion())) {
            // Sealed by an instance with a newer KEK (a rolling deploy adding one): not this send's fault, and not the
            // NMC's own failure to count towards technisch-mislukt. Postponed like a party's outage, an instance that
            // holds the key takes it; past geldig_tot it ends verlopen, as every postponed send does.
            LOG.warning(() -> "send task " + task.id() + " meets KEK version "
                    + job.sealed().kekVersion()
                    + ", which this instance does not hold (privacy.kek.versions): postponed");
            commit(task, job, new NotifyNl.SendResult.Unavailable("kek-onbekend", false));
            return;
        }
        Map<String, String> opened = envelope.open(
                job.sealed().id(),
                job.sealed().wrappedDataKey(),
                job.sealed().kekVersion(),
                Map.of(
                        "ontvanger",
                        job.sealed().recipient(),
                        "personalisatie",
                        job.sealed().personalisation()));
        String recipient = opened.get("ontvanger");
        Map<String, String> personalisation = mapper.readValue(opened.get("personalisatie"), new TypeReference<>() {});
        String emailAddress = recipient;
        SentContact contactgegeven = null;
        if (job.context().regime().equals("centraal")) {
            Identification party = Identification.unsealed(recipient);
            Profielservice.Call call = profielservice.call(job.childSpan());
            if (!ours(task, job)) {
                return;
            }
            ProcessingLog.Processing lookup = processing(
                    job, ProcessingLog.Operation.CONTACTGEGEVENS_OPVRAGEN, call.span(), call.fscTransactionId());
            if (ldv.record(lookup) instanceof ProcessingLog.Written.Unavailable down) {
                commit(task, job, new NotifyNl.SendResult.Unavailable("ldv-" + down.reason(), false));
                return;
            }
            String dienstverlener = job.sealed().profielDienstverlenerNaam();
            String dienst = job.berichttype().profielDienstNaam();
            Optional<AddressChoice.Contact> chosen;
            if (!ours(task, job)) {
                ldv.failed(
                        lookup, ProcessingLog.NOT_CALLED, clock.instant()); // the record names a look-up not made here
                return;
            }
            switch (profielservice.lookUp(party, dienstverlener, dienst, call)) {
                case Profielservice.Lookup.Found found ->
                    chosen = AddressChoice.choose(
                            found.contacts(), dienstverlener, dienst, profielSettings.useUnverifiedAddresses());
                case Profielservice.Lookup.PartyUnknown unknown -> chosen = Optional.empty();
                case Profielservice.Lookup.Unavailable unavailable -> {
                    ldv.failed(lookup, unavailable.reason(), clock.instant());
                    commit(
                            task,
                            job,
                            new NotifyNl.SendResult.Unavailable("profielservice-" + unavailable.reason(), false));
                    return;
                }
            }
            if (chosen.isEmpty()) {
                owned.underLocks(task, subjectLock(), (tx, n) -> endWithoutContact(tx, task, job, n));
                return;
            }
            // as NotifyNL validates it: it echoes what it was sent in its receipts
            emailAddress = AddressChoice.normalised(chosen.get().value());
            if (profielSettings.invalidAddressReport() == ProfielserviceSettings.InvalidAddressReport.DELETE) {
                contactgegeven =
                        SentContact.sentTo(chosen.get().id(), chosen.get().lastUpdated());
            }
        }
        if (endedExpired(task, job)) {
            return; // the lookup took until after geldig_tot
        }
        Span send = job.childSpan();
        if (!ours(task, job)) {
            return;
        }
        ProcessingLog.Processing sending = processing(job, ProcessingLog.Operation.EMAIL_VERSTUREN, send, null);
        if (ldv.record(sending) instanceof ProcessingLog.Written.Unavailable down) {
            commit(task, job, new NotifyNl.SendResult.Unavailable("ldv-" + down.reason(), false));
            return;
        }
        SentContact contactId = contactgegeven;
        // From here on the attempt may be at NotifyNL: record that under the same locks as every other write.
        // geldig_tot is checked once more here, since the LDV store and the Profielservice took their time (§7.5).
        Optional<Boolean> started;
        try {
            started = owned.computeUnderLocks(task, subjectLock(), (tx, n) -> {
                if (n.expiredAt(clock.instant())) {
                    endExpired(tx, task, n);
                    return false;
                }
                if (n.status() != NotificatieStatus.IN_VERZENDING && n.status() != NotificatieStatus.VERZONDEN) {
                    // A receipt decided while this send ran (a late delivered on attempt 1 during the resend):
                    // nothing to send. The planned attempt stays for a resend should that delivery bounce.
                    tasks.complete(tx, task);
                    return false;
                }
                tasks.extendLease(tx, task, clock.instant().plus(lease));
                pogingen.markRequested(tx, job.poging().id(), job.service());
                if (contactId != null) {
                    // the address it goes to, for the invalid-address report: sealed like the number it belongs to
                    pogingen.setContactgegeven(
                            tx,
                            job.poging().id(),
                            envelope.sealField(
                                    job.sealed().id(),
                                    job.sealed().wrappedDataKey(),
                                    job.sealed().kekVersion(),
                                    "contactgegeven/" + job.poging().id(),
                                    contactId.encode()));
                }
                return true;
            });
        } catch (RuntimeException notStarted) {
            ldv.failed(sending, ProcessingLog.NOT_CALLED, clock.instant());
            throw notStarted;
        }
        if (!started.orElse(false)) {
            // expired, decided meanwhile, or the claim was lost: the record names a call that does not happen
            ldv.failed(sending, ProcessingLog.NOT_CALLED, clock.instant());
            return;
        }
        posted.set(true);
        NotifyNl.SendResult result = notifyNl.of(job.service())
                .sendEmail(
                        job.berichttype().notifyTemplateId(),
                        emailAddress,
                        personalisation,
                        job.poging().id(),
                        send);
        // Nothing went out on these: the record written before the call gets its ERROR record.
        switch (result) {
            case NotifyNl.SendResult.Unavailable failed -> ldv.failed(sending, failed.reason(), clock.instant());
            case NotifyNl.SendResult.SetupFailure setup ->
                ldv.failed(sending, setup.error().errorClass(), clock.instant());
            case NotifyNl.SendResult.DailyLimit limit -> ldv.failed(sending, DAILY_LIMIT, clock.instant());
            case NotifyNl.SendResult.Accepted accepted -> {}
            case NotifyNl.SendResult.Rejected rejected -> {} // NotifyNL judged the address: that processing happened
        }
        // An uncertain outcome past geldig_tot is postponed like any other (commit): the attempt may be at NotifyNL
        // and runs to its outcome (design §7.5); only the next claim's lookup, once NotifyNL can have finished the
        // request, may end the notification verlopen.
        commit(task, job, result, send);
        if (result instanceof NotifyNl.SendResult.SetupFailure setup
                && setup.error() == SetupError.PERSONALISATION_MISSING) {
            // The template changed since its placeholders were fetched: acceptance must know at once.
            templates.refresh(job.service(), job.berichttype().notifyTemplateId());
        }
    }

    /** The send is planned again under {@code service}'s budget: a call uses the key of the budget that paid it. */
    private void planAgainUnder(DbTransaction tx, Task task, Transitions.Locked n, String service) {
        tasks.complete(tx, task);
        notificatieTasks.planSend(tx, n, service, clock.instant());
    }

    /** An erased notification cannot be sent: its attempt and the notification end technisch-mislukt at once. */
    private void endErased(DbTransaction tx, Task task, Job job, Transitions.Locked n) {
        LOG.warning(() -> "notification " + n.id() + " was erased before its resend; it ends technisch-mislukt");
        pogingen.setStatus(tx, job.poging().id(), PogingStatus.TECHNISCH_MISLUKT);
        if (n.status() == NotificatieStatus.IN_VERZENDING || n.status() == NotificatieStatus.VERZONDEN) {
            notificatieTasks.completeAll(
                    tx, transitions.apply(tx, n, NotificatieStatus.TECHNISCH_MISLUKT, Reden.TECHNISCH));
        } else {
            tasks.complete(tx, task);
        }
    }

    /** geldig_tot has passed before a new attempt could start: ends the notification verlopen; true if so. */
    private boolean endedExpired(Task task, Job job) {
        if (!job.sealed().expiredAt(clock.instant())) {
            return false;
        }
        owned.underLocks(task, subjectLock(), (tx, n) -> endExpired(tx, task, n));
        return true;
    }

    /**
     * Extends the claim's lease right before an external call (ADR 0024: before every one, so a slow party
     * earlier in the task cannot let the lease run out under the next call); {@code false}: the task is no
     * longer this claim's, so the call is not made and nothing is written (the token goes back). The first call
     * after the start needs no transaction of its own: the start extended the lease under its locks, and nothing
     * was called in between.
     */
    private boolean ours(Task task, Job job) {
        if (job.leaseExtended().getAndSet(false)) {
            return true; // the start's transaction extended it (as this task's) and no call was made since
        }
        return owned.extendLease(task, clock.instant().plus(lease));
    }

    /** The processing-log record of a call about to be made (written before it; without it, no call). */
    private ProcessingLog.Processing processing(
            Job job, ProcessingLog.Operation operation, Span span, String fscTransactionId) {
        NotificatieRepository.ProcessingContext c = job.context();
        return new ProcessingLog.Processing(
                span,
                operation,
                c.processingActivity(),
                new DataSubjects.DataSubject(c.dataSubject(), c.dataSubjectType()),
                clock.instant(),
                null,
                fscTransactionId);
    }

    /**
     * The Profielservice has no address to send to (its own 404 for an unknown or deleted party, or no contact data
     * the address rule may choose): the attempt fails and the notification ends niet-bezorgbaar,
     * geen-contactgegevens (first send or resend alike).
     */
    private void endWithoutContact(DbTransaction tx, Task task, Job job, Transitions.Locked n) {
        if (n.status() == NotificatieStatus.IN_VERZENDING || n.status() == NotificatieStatus.VERZONDEN) {
            pogingen.setStatus(tx, job.poging().id(), PogingStatus.PERMANENT_MISLUKT);
            notificatieTasks.completeAll(
                    tx, transitions.apply(tx, n, NotificatieStatus.NIET_BEZORGBAAR, Reden.GEEN_CONTACTGEGEVENS));
        } else {
            // A receipt decided while the look-up ran (a late delivered on attempt 1 during the resend): as before a
            // POST, the planned attempt stays for a resend should that delivery bounce, and looks the address up then.
            // Found by reading: marked failed here, a later bounce ended the notification onbereikbaar with no look-up.
            tasks.complete(tx, task);
        }
    }

    /**
     * The start of a send, under the notification's lock: the claim's transition (design §6: every claim of
     * a send task goes through the transition function) and the attempt it sends. Null: nothing to send,
     * and the task is completed.
     */
    private Job start(DbTransaction tx, Task task, Transitions.Locked n) {
        Instant now = clock.instant();
        Berichttype berichttype = register.berichttype(tx, n.berichttype())
                .orElseThrow(() -> new IllegalStateException("unknown berichttype of notification " + n.id()));
        Optional<Poging> latest = pogingen.latest(tx, n.id());
        Optional<Poging> planned = latest.filter(p -> p.status() == PogingStatus.GEPLAND);
        boolean live = n.status() == NotificatieStatus.AANGENOMEN
                || n.status() == NotificatieStatus.IN_VERZENDING
                || n.status() == NotificatieStatus.VERZONDEN;
        // The service this send must use: the one an attempt that may already be at NotifyNL was POSTed with (it is
        // looked up there), else the berichttype's own (it may have moved since the task was planned). A service no
        // longer configured has no budget, so its task would never be claimed: then the berichttype's own.
        String service = planned.filter(Poging::requested)
                .map(p -> p.notifyService() != null ? p.notifyService() : task.budget())
                .filter(notifyNl.names()::contains)
                .orElse(berichttype.notifyService());
        if (live && !service.equals(task.budget())) {
            // A call uses the key of the service whose budget paid for it, so the send is planned again under it.
            LOG.warning(() -> "send task " + task.id() + " was planned for NotifyNL service " + task.budget()
                    + "; it belongs to " + service + ": planned again under that budget");
            planAgainUnder(tx, task, n, service);
            return null;
        }
        Optional<Instant> closed = live && !n.expiredAt(now)
                ? sendBudget.closedUntil(tx, task.budget(), Budget.SENDING, now)
                : Optional.empty();
        if (closed.isPresent()) {
            // Claimed before its service's budget was closed for the daily limit: no call, no LDV record, no
            // transition; it waits for the window like the sends that refused it (its token goes back).
            tasks.postpone(tx, task, closed.get(), DAILY_LIMIT);
            return null;
        }
        Poging poging;
        switch (n.status()) {
            case AANGENOMEN -> {
                if (n.expiredAt(now)) {
                    return end(tx, task, n, NotificatieStatus.VERLOPEN, Reden.VERLOPEN);
                }
                transitions.apply(tx, n, NotificatieStatus.IN_VERZENDING, null);
                poging = pogingen.insert(tx, n.id(), 1);
            }
            // A re-claim after an expired lease or a postponement is not a transition: the planned attempt
            // is reused.
            case IN_VERZENDING, VERZONDEN -> {
                if (planned.isPresent()) {
                    poging = planned.get();
                } else if (n.status() == NotificatieStatus.VERZONDEN
                        && latest.isPresent()
                        && latest.get().number() >= 2
                        && latest.get().status().failed()) {
                    // The resend was made and ended without a delivery, its failure only recorded while the
                    // notification rested on attempt 1's delivery, which then bounced: no attempt is left, so the
                    // resend's failure decides as it would have (seed: "op de tweede poging geeft temporary-failure
                    // niet-bezorgbaar met reden onbereikbaar en technical-failure technisch-mislukt").
                    PogingStatus.Ending ending = latest.get().status().endingAsLastAttempt();
                    return end(tx, task, n, ending.status(), ending.reden());
                } else if (n.status() == NotificatieStatus.IN_VERZENDING && latest.isEmpty()) {
                    // An operator forced it from aangenomen: its first attempt was never made.
                    if (n.expiredAt(now)) {
                        return end(tx, task, n, NotificatieStatus.VERLOPEN, Reden.VERLOPEN);
                    }
                    poging = pogingen.insert(tx, n.id(), 1);
                } else if (n.status() == NotificatieStatus.IN_VERZENDING
                        || latest.isEmpty()
                        || latest.get().status().running()
                        || latest.get().number() >= 2) {
                    LOG.warning(() -> "send task " + task.id() + " found nothing to send; completing it");
                    tasks.complete(tx, task);
                    return null;
                } else if (n.expiredAt(now)) {
                    return end(tx, task, n, NotificatieStatus.VERLOPEN, Reden.VERLOPEN);
                } else {
                    transitions.apply(tx, n, NotificatieStatus.VERZONDEN, null);
                    poging = pogingen.insert(tx, n.id(), 2);
                }
            }
            default -> {
                tasks.complete(tx, task);
                return null;
            }
        }
        // The lease covers the batch from the claim; a task that waited for its turn gets it anew here.
        tasks.extendLease(tx, task, now.plus(lease));
        NotificatieRepository.ForSending sealed =
                notificaties.forSending(tx, n.id()).orElseThrow();
        NotificatieRepository.ProcessingContext context =
                notificaties.processingContext(tx, n.id()).orElseThrow();
        return new Job(poging, sealed, context, berichttype, task.budget(), new AtomicBoolean(true));
    }

    private Job end(DbTransaction tx, Task task, Transitions.Locked n, NotificatieStatus to, Reden reden) {
        notificatieTasks.completeAll(tx, transitions.apply(tx, n, to, reden));
        return null;
    }

    /**
     * Searches NotifyNL by reference: the attempt was accepted ({@code Accepted}), NotifyNL cannot say now
     * ({@code Unavailable} that may have arrived), or empty: certainly not at NotifyNL. A claim that lost its
     * task asks nothing ({@code Unavailable}, whose commit then writes nothing).
     */
    private Optional<NotifyNl.SendResult> lookUp(Task task, Job job) {
        Span span = job.childSpan();
        if (!ours(task, job)) {
            return Optional.of(new NotifyNl.SendResult.Unavailable("lease", true));
        }
        ProcessingLog.Processing query = processing(job, ProcessingLog.Operation.STATUS_OPVRAGEN, span, null);
        if (ldv.record(query) instanceof ProcessingLog.Written.Unavailable down) {
            return Optional.of(new NotifyNl.SendResult.Unavailable("ldv-" + down.reason(), true));
        }
        if (!ours(task, job)) {
            ldv.failed(query, ProcessingLog.NOT_CALLED, clock.instant());
            return Optional.of(new NotifyNl.SendResult.Unavailable("lease", true));
        }
        return switch (notifyNl.of(job.service()).findByReference(job.poging().id(), span)) {
            case NotifyNl.Lookup.Found found -> Optional.of(new NotifyNl.SendResult.Accepted(found.notifyId()));
            case NotifyNl.Lookup.NotFound notFound -> Optional.empty();
            case NotifyNl.Lookup.Unavailable unavailable -> {
                ldv.failed(query, unavailable.reason(), clock.instant());
                yield Optional.of(new NotifyNl.SendResult.Unavailable(unavailable.reason(), true));
            }
        };
    }

    private void commit(Task task, Job job, NotifyNl.SendResult result) {
        commit(task, job, result, null);
    }

    /** The outcome of a call under the locks; {@code span} is the send's (for its log line), null for the others. */
    private void commit(Task task, Job job, NotifyNl.SendResult result, Span span) {
        owned.underLocks(task, subjectLock(), (tx, n) -> {
            switch (result) {
                case NotifyNl.SendResult.SetupFailure setup -> setupFailure(tx, task, job, n, setup.error(), span);
                case NotifyNl.SendResult.DailyLimit limit -> dailyLimit(tx, task, job, n, span);
                case NotifyNl.SendResult.Accepted accepted -> accepted(tx, task, job, n, accepted.notifyId());
                case NotifyNl.SendResult.Rejected rejected -> {
                    pogingen.setStatus(tx, job.poging().id(), PogingStatus.PERMANENT_MISLUKT);
                    if (n.status() == NotificatieStatus.IN_VERZENDING || n.status() == NotificatieStatus.VERZONDEN) {
                        transitions.apply(tx, n, NotificatieStatus.NIET_BEZORGBAAR, Reden.ONBEREIKBAAR);
                        notificatieTasks.completeAll(tx, n);
                    } else {
                        tasks.complete(tx, task);
                    }
                }
                case NotifyNl.SendResult.Unavailable unavailable -> {
                    Instant now = clock.instant();
                    if (n.expiredAt(now) && !unavailable.mayHaveArrived()) {
                        endExpired(tx, task, n);
                    } else {
                        Duration wait = backoff.apply(task.postponements() + 1);
                        if (span != null && unavailable.mayHaveArrived() && wait.compareTo(uncertainSendWait) < 0) {
                            // The POST's own outcome is unknown: NotifyNL may still be persisting it, and the next
                            // claim's lookup by reference must see it there, or it sends the e-mail twice.
                            wait = uncertainSendWait;
                        }
                        Instant due = now.plus(wait);
                        tasks.postpone(
                                tx, task, unavailable.mayHaveArrived() ? due : notPast(n, due), unavailable.reason());
                    }
                }
            }
        });
    }

    /**
     * A postponement of a send that is certainly not at NotifyNL, due no later than just after geldig_tot: ADR 0024,
     * "verstrijkt dat tijdens het uitstel, dan eindigt de notificatie in verlopen", then, not when a 15-minute
     * backoff ends. (A send whose POST may have arrived waits its whole wait: its lookup decides.)
     */
    private static Instant notPast(Transitions.Locked n, Instant due) {
        if (n.validUntil() == null) {
            return due;
        }
        Instant justAfter = n.validUntil().plusSeconds(1); // strictly after it, when Transitions.expired holds
        return due.isAfter(justAfter) ? justAfter : due;
    }

    /**
     * A refusal of the setup: the notification is not blamed and its attempt not used up (it stays planned). The
     * task is postponed with backoff; the {@code notifynl.setup-error-max-tries}-th refusal of the template, the
     * trial mode and the like, or the first after it that comes {@code notifynl.setup-error-min-span} after the first
     * refusal, parks it as {@code mislukt} with the error's class, for an operator who fixes the setup and reopens it.
     * A 401 or 403 of the key or the service is never parked (ADR 0024: "betreft de aanroep, niet de
     * poging: de taak wordt uitgesteld en herhaald", bounded only by geldig_tot), so sends resume by themselves once
     * the key is fixed; after its bounded tries it is counted and no longer logged. After geldig_tot nothing new may
     * start: the notification ends verlopen.
     */
    private void setupFailure(DbTransaction tx, Task task, Job job, Transitions.Locked n, SetupError error, Span span) {
        Instant now = clock.instant();
        if (n.expiredAt(now)) {
            endExpired(tx, task, n);
            return;
        }
        // Refused outright: NotifyNL does not have it, so the next try sends without a lookup (and its LDV record).
        pogingen.clearRequested(tx, job.poging().id());
        Optional<TaskRepository.Counted> counted = tasks.postponeCounting(
                tx,
                task,
                notPast(n, now.plus(backoff.apply(task.postponements() + 1))),
                error.errorClass(),
                error.ofTheCall() ? CALL_REFUSALS : SETUP_ERRORS,
                error.ofTheCall() ? Integer.MAX_VALUE : setupErrorMaxTries,
                setupErrorMinSpan,
                now);
        if (counted.isEmpty()) {
            return;
        }
        boolean parked = counted.get().parked();
        metrics.notifyNlSetupError(job.berichttype().code(), job.service(), error.errorClass(), parked);
        if (error.ofTheCall() && counted.get().count() > setupErrorMaxTries) {
            return; // counted above; one line per try would flood the log while a key stays wrong for hours
        }
        String next = error.ofTheCall()
                ? "not the notification's fault; the send is postponed and tried again until its geldig_tot (refusal "
                        + counted.get().count()
                        + (counted.get().count() == setupErrorMaxTries
                                ? "; further refusals are counted, not logged)"
                                : ")")
                : parked
                        ? "not the notification's fault; the send task is parked as mislukt (" + error.errorClass()
                                + ") after " + counted.get().count() + " such refusals: fix it and reopen the task "
                                + "(operator API POST /taken/heropeningen)"
                        : counted.get().count() < setupErrorMaxTries
                                ? "not the notification's fault; the send is postponed (refusal "
                                        + counted.get().count() + " of " + setupErrorMaxTries + " before it is parked)"
                                : "not the notification's fault; the send is postponed (refusal "
                                        + counted.get().count() + "; it is parked once the refusals have lasted "
                                        + setupErrorMinSpan + ")";
        String reason = "NotifyNL refused it for its setup: " + error.errorClass() + " (" + error.hint()
                + ") for berichttype " + job.berichttype().code() + " of NotifyNL service " + job.service();
        if (span == null) {
            LOG.warning(() -> SEND + " failed: " + reason + "; " + next);
        } else {
            FailedCalls.warn(LOG, SEND, reason, span, next);
        }
    }

    /**
     * The service's daily limit is used up: its sending budget is closed until the limit's window has passed, and the
     * send waits until then; neither the attempt nor a failure is counted. After geldig_tot it ends verlopen.
     */
    private void dailyLimit(DbTransaction tx, Task task, Job job, Transitions.Locked n, Span span) {
        Instant now = clock.instant();
        Instant reopens = dailyLimit.reopensAfter(now);
        sendBudget.close(tx, job.service(), Budget.SENDING, reopens, now, DAILY_LIMIT);
        metrics.notifyNlDailyLimit(job.service());
        pogingen.clearRequested(tx, job.poging().id());
        if (n.expiredAt(now)) {
            endExpired(tx, task, n);
        } else {
            tasks.postpone(tx, task, reopens, DAILY_LIMIT);
        }
        String reason = "HTTP 429 TooManyRequestsError (the daily limit of NotifyNL service " + job.service() + ")";
        String next = "no more sends through it until " + reopens + "; this send waits until then";
        if (span == null) {
            LOG.warning(() -> SEND + " failed: " + reason + "; " + next);
        } else {
            FailedCalls.warn(LOG, SEND, reason, span, next);
        }
    }

    /** geldig_tot passed before the attempt could start: the notification ends verlopen (design §7.5). */
    private void endExpired(DbTransaction tx, Task task, Transitions.Locked n) {
        if (n.status() == NotificatieStatus.IN_VERZENDING || n.status() == NotificatieStatus.VERZONDEN) {
            notificatieTasks.completeAll(tx, transitions.apply(tx, n, NotificatieStatus.VERLOPEN, Reden.VERLOPEN));
        } else {
            tasks.complete(tx, task);
        }
    }

    private void accepted(DbTransaction tx, Task task, Job job, Transitions.Locked n, UUID notifyId) {
        Poging poging = pogingen.lock(tx, job.poging().id()).orElseThrow();
        if (poging.status() == PogingStatus.GEPLAND) {
            pogingen.markSent(tx, poging.id(), notifyId);
            if (n.status() == NotificatieStatus.IN_VERZENDING) {
                transitions.apply(tx, n, NotificatieStatus.VERZONDEN, null);
            }
            notificatieTasks.planReconciliation(
                    tx, n, poging.id(), job.service(), clock.instant().plus(firstReconciliation));
        } else if (!poging.knows(notifyId)) {
            // A receipt already adopted another id for this attempt: both e-mails went out.
            if (pogingen.addDuplicate(tx, poging.id(), notifyId)) {
                metrics.duplicateNotifyId();
            }
        }
        tasks.complete(tx, task);
    }

    /** An exhausted send task ends the notification technisch-mislukt (design §6). */
    @Override
    public void onExhausted(DbTransaction tx, Task task, TaskRepository taskRepository, String error) {
        Transitions.Locked n = transitions.lock(tx, task.notificatie()).orElse(null);
        if (n != null
                && (n.status() == NotificatieStatus.AANGENOMEN
                        || n.status() == NotificatieStatus.IN_VERZENDING
                        || n.status() == NotificatieStatus.VERZONDEN)) {
            notificatieTasks.completeAll(
                    tx, transitions.apply(tx, n, NotificatieStatus.TECHNISCH_MISLUKT, Reden.TECHNISCH));
        } else {
            taskRepository.complete(tx, task);
        }
    }

    /** The berichttype's retry policy bounds the NMC-internal failures of its send tasks. */
    @Override
    public int maxFailures(DbTransaction tx, Task task) {
        // The caller holds the notification's lock already, so this reads the locked row again, cheaply.
        return transitions
                .lock(tx, task.notificatie())
                .flatMap(n -> register.berichttype(tx, n.berichttype()))
                .map(Berichttype::maxFailures)
                .orElse(DEFAULT_MAX_FAILURES);
    }

    /**
     * @param service       the NotifyNL service every call of this send goes to: the task's budget key
     * @param leaseExtended whether the lease was extended since the last external call (the start extended it)
     */
    private record Job(
            Poging poging,
            NotificatieRepository.ForSending sealed,
            NotificatieRepository.ProcessingContext context,
            Berichttype berichttype,
            String service,
            AtomicBoolean leaseExtended) {

        /** A new operation in the notification's trace, a child of its acceptance. */
        Span childSpan() {
            return Span.childOf(context.traceId(), context.acceptanceSpanId());
        }
    }
}
