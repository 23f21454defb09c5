package nl.overheid.moz.nmc.sending;

import io.helidon.dbclient.DbTransaction;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import java.util.function.IntFunction;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.engine.OwnedTasks;
import nl.overheid.moz.nmc.engine.SubjectLock;
import nl.overheid.moz.nmc.engine.Task;
import nl.overheid.moz.nmc.engine.TaskHandler;
import nl.overheid.moz.nmc.engine.TaskKind;
import nl.overheid.moz.nmc.engine.TaskRepository;
import nl.overheid.moz.nmc.ldv.DataSubjects;
import nl.overheid.moz.nmc.ldv.ProcessingLog;
import nl.overheid.moz.nmc.lifecycle.NotificatieRepository;
import nl.overheid.moz.nmc.lifecycle.PogingRepository;
import nl.overheid.moz.nmc.lifecycle.Transitions;
import nl.overheid.moz.nmc.observe.NmcMetrics;
import nl.overheid.moz.nmc.planning.HandlerSupport;
import nl.overheid.moz.nmc.planning.NotificatieTasks;
import nl.overheid.moz.nmc.privacy.Envelope;
import nl.overheid.moz.nmc.profiel.Identification;
import nl.overheid.moz.nmc.profiel.Profielservice;
import nl.overheid.moz.nmc.profiel.ProfielserviceSettings;
import nl.overheid.moz.nmc.register.Register;
import nl.overheid.moz.nmc.trace.Span;

/**
 * The {@code ongeldig-melden} task (centralised regime, design §3): after a permanent failure, the address the
 * attempt went to is removed at the Profielservice. Its real contract has no operation to report an address
 * invalid; the NMC soft-deletes the contactgegeven the attempt was sent to ({@code DELETE /contactgegeven/{id}},
 * with the party's identification in the body, decrypted here — one of the two places that may decrypt). A second
 * delete of the same contactgegeven is the Profielservice's 404, which counts as done, so the report is
 * idempotent. The Profielservice changes an address in place and its delete checks no value, so the report first
 * asks for the party's contact data and deletes only while the contactgegeven is unchanged since the attempt went
 * to it ({@link SentContact}; a changed or vanished one is counted, not deleted). Each call's LDV record comes first.
 * With {@code profielservice.invalid-address-report: none} nothing is sent:
 * the need is counted per DV ({@code nmc_invalid_address_reports_not_sent_total}) and logged, never dropped
 * silently. An error of the Profielservice, or a record the LDV store did not take, postpones the report for as long as it lasts, with a backoff
 * capped at {@code profielservice.report-backoff-max} (at most a day), and never parks it (ADR 0024: a postponement
 * after a failure of NotifyNL, the Profielservice or the LDV does not count); the age of the oldest waiting report is
 * a gauge. Only the NMC's own failures park it: an exception counted up to the kind's maximum, or an erased data key.
 */
public final class InvalidAddressReporter implements TaskHandler {

    private static final Logger LOG = Logger.getLogger(InvalidAddressReporter.class.getName());

    private final OwnedTasks owned;
    private final TaskRepository tasks;
    private final NotificatieTasks notificatieTasks;
    private final NotificatieRepository notificaties;
    private final Envelope envelope;
    private final Profielservice profielservice;
    private final ProcessingLog ldv;
    private final NmcMetrics metrics;
    private final Clock clock;
    private final Duration lease;
    private final IntFunction<Duration> backoff;
    private final ProfielserviceSettings.InvalidAddressReport mode;
    private final PogingRepository pogingen;
    private final Register register;

    /** @param backoff the wait before the n-th retry of a report, capped at {@code profielservice.report-backoff-max} */
    public InvalidAddressReporter(
            HandlerSupport support,
            Envelope envelope,
            Profielservice profielservice,
            ProfielserviceSettings settings,
            Register register,
            IntFunction<Duration> backoff) {
        this.register = register;
        this.owned = support.owned();
        this.tasks = support.tasks();
        this.notificatieTasks = support.notificatieTasks();
        this.notificaties = support.notificaties();
        this.envelope = envelope;
        this.profielservice = profielservice;
        this.ldv = support.ldv();
        this.metrics = support.metrics();
        this.clock = support.clock();
        this.lease = support.lease();
        this.backoff = backoff;
        this.mode = settings.invalidAddressReport();
        this.pogingen = support.pogingen();
    }

    @Override
    public TaskKind kind() {
        return TaskKind.ONGELDIG_MELDEN;
    }

    @Override
    public SubjectLock<Transitions.Locked> subjectLock() {
        return notificatieTasks.lock();
    }

    private record Report(
            NotificatieRepository.ForSending sealed,
            NotificatieRepository.ProcessingContext context,
            String contactField,
            byte[] contactgegeven,
            String dienstNaam) {}

    /** What asking the Profielservice first decided: delete, done without a delete, or try again later. */
    private sealed interface Check {
        record Delete() implements Check {}

        record Done(String notSent) implements Check {}

        record Later(String failure) implements Check {}
    }

    /** Postponed with the task's backoff, uncounted: a party's outage, a lost lease, a key not held here. */
    private void later(io.helidon.dbclient.DbTransaction tx, Task task, String failure) {
        tasks.postpone(tx, task, clock.instant().plus(backoff.apply(task.postponements() + 1)), failure);
    }

    @Override
    public void execute(Task task) {
        Report report = owned.computeUnderLocks(task, subjectLock(), (tx, n) -> prepare(tx, task))
                .orElse(null);
        if (report == null) {
            return;
        }
        NotificatieRepository.ForSending sealed = report.sealed();
        if (!envelope.holdsKek(sealed.kekVersion())) {
            // As the send task (SendPipeline): sealed, or re-wrapped, under a KEK version a newer instance added (a
            // rolling deploy). Not the NMC's own failure to count towards parking the report: postponed, an instance
            // that holds the key takes it. Found by reading: counted, it was parked after five rounds, and the bounced
            // address stayed in the party's profile until an operator reopened it.
            LOG.warning(() -> "invalid-address report task " + task.id() + " meets KEK version " + sealed.kekVersion()
                    + ", which this instance does not hold (privacy.kek.versions): postponed");
            owned.underLocks(task, subjectLock(), (tx, n) -> later(tx, task, "kek-onbekend"));
            return;
        }
        java.util.Map<String, String> opened = envelope.open(
                sealed.id(),
                sealed.wrappedDataKey(),
                sealed.kekVersion(),
                java.util.Map.of("ontvanger", sealed.recipient(), report.contactField(), report.contactgegeven()));
        Identification party = Identification.unsealed(opened.get("ontvanger"));
        SentContact sent = SentContact.decode(opened.get(report.contactField()));
        UUID contactgegeven = sent.id();
        NotificatieRepository.ProcessingContext c = report.context();
        Check check = sent.lastUpdated() == null ? new Check.Delete() : check(task, report, party, sent);
        if (!(check instanceof Check.Delete)) {
            owned.underLocks(task, subjectLock(), (tx, n) -> {
                switch (check) {
                    case Check.Done done ->
                        notSent(
                                tx,
                                task,
                                sealed,
                                done.notSent(),
                                "the contactgegeven the attempt went to was changed or is gone since");
                    case Check.Later later -> later(tx, task, later.failure());
                    case Check.Delete delete -> throw new IllegalStateException("unreachable");
                }
            });
            return;
        }
        Profielservice.Call call = profielservice.call(Span.childOf(c.traceId(), c.acceptanceSpanId()));
        if (!ours(task)) {
            return;
        }
        ProcessingLog.Processing processing = processing(ProcessingLog.Operation.EMAILADRES_ONGELDIG_MELDEN, call, c);
        String failure = switch (ldv.record(processing)) {
            case ProcessingLog.Written.Unavailable down -> "ldv-" + down.reason();
            case ProcessingLog.Written.Acknowledged ack -> {
                if (!ours(task)) {
                    ldv.failed(processing, ProcessingLog.NOT_CALLED, clock.instant());
                    yield "lease";
                }
                yield switch (profielservice.remove(contactgegeven, party, call)) {
                    case Profielservice.Removal.Removed removed -> null;
                    case Profielservice.Removal.AlreadyGone gone -> null;
                    case Profielservice.Removal.Unavailable down -> {
                        ldv.failed(processing, down.reason(), clock.instant());
                        yield "profielservice-" + down.reason();
                    }
                };
            }
        };
        owned.underLocks(task, subjectLock(), (tx, n) -> {
            if (failure == null) {
                tasks.complete(tx, task);
            } else {
                // A party's failure is never the NMC's: waited out, however long it lasts, and never parked.
                later(tx, task, failure);
            }
        });
    }

    /**
     * Asks the Profielservice, as the send did, whether the contactgegeven is unchanged since the attempt went to it
     * (its {@code lastUpdated}): it changes an address in place and its delete checks no value, so a corrected
     * address would go otherwise.
     */
    private Check check(Task task, Report report, Identification party, SentContact sent) {
        NotificatieRepository.ProcessingContext c = report.context();
        Profielservice.Call call = profielservice.call(Span.childOf(c.traceId(), c.acceptanceSpanId()));
        if (!ours(task)) {
            return new Check.Later("lease");
        }
        ProcessingLog.Processing lookup = processing(ProcessingLog.Operation.CONTACTGEGEVENS_OPVRAGEN, call, c);
        if (ldv.record(lookup) instanceof ProcessingLog.Written.Unavailable down) {
            return new Check.Later("ldv-" + down.reason());
        }
        if (!ours(task)) {
            ldv.failed(lookup, ProcessingLog.NOT_CALLED, clock.instant());
            return new Check.Later("lease");
        }
        return switch (profielservice.lookUp(
                party, report.sealed().profielDienstverlenerNaam(), report.dienstNaam(), call)) {
            case Profielservice.Lookup.Found found ->
                found.contacts().stream()
                        .filter(contact -> sent.id().equals(contact.id()))
                        .findFirst()
                        .<Check>map(contact -> sent.unchangedAt(contact.lastUpdated())
                                ? new Check.Delete()
                                : new Check.Done("contactgegeven-gewijzigd"))
                        // gone, or no longer offered to this DV and dienst: nothing of it to delete
                        .orElse(new Check.Done("contactgegeven-weg"));
            case Profielservice.Lookup.PartyUnknown unknown -> new Check.Done("contactgegeven-weg");
            case Profielservice.Lookup.Unavailable unavailable -> {
                ldv.failed(lookup, unavailable.reason(), clock.instant());
                yield new Check.Later("profielservice-" + unavailable.reason());
            }
        };
    }

    /** The record of a call to the Profielservice about the notification, written before the call. */
    private ProcessingLog.Processing processing(
            ProcessingLog.Operation operation, Profielservice.Call call, NotificatieRepository.ProcessingContext c) {
        return new ProcessingLog.Processing(
                call.span(),
                operation,
                c.processingActivity(),
                new DataSubjects.DataSubject(c.dataSubject(), c.dataSubjectType()),
                clock.instant(),
                null,
                call.fscTransactionId());
    }

    /** Extends the claim's lease right before an external call; {@code false}: the task is another claim's now. */
    private boolean ours(Task task) {
        return owned.extendLease(task, clock.instant().plus(lease));
    }

    /** What the report needs; null when there is nothing to send (then the task is completed or parked). */
    private Report prepare(DbTransaction tx, Task task) {
        NotificatieRepository.ForSending sealed =
                notificaties.forSending(tx, task.notificatie()).orElse(null);
        NotificatieRepository.ProcessingContext context =
                notificaties.processingContext(tx, task.notificatie()).orElse(null);
        if (sealed == null || context == null || !"centraal".equals(sealed.regime())) {
            tasks.complete(tx, task);
            return null;
        }
        if (mode == ProfielserviceSettings.InvalidAddressReport.NONE) {
            notSent(tx, task, sealed, "instelling", "profielservice.invalid-address-report is none");
            return null;
        }
        byte[] contactgegeven = task.poging() == null
                ? null
                : pogingen.contactgegeven(tx, task.poging()).orElse(null);
        if (contactgegeven == null) {
            // The attempt kept no contactgegeven (sent while reports were off): nothing names the address to remove.
            notSent(tx, task, sealed, "adres-onbekend", "the attempt kept no contactgegeven id");
            return null;
        }
        if (sealed.wrappedDataKey() == null) {
            // Erased: the number can no longer be read, so nobody can report it. An operator decides.
            tasks.markFailed(tx, task, "datasleutel-gewist");
            metrics.invalidReportParked();
            return null;
        }
        String dienstNaam = register.berichttype(tx, sealed.berichttype())
                .map(nl.overheid.moz.nmc.register.Berichttype::profielDienstNaam)
                .orElse(null);
        return new Report(sealed, context, "contactgegeven/" + task.poging(), contactgegeven, dienstNaam);
    }

    /** A report that is not sent is counted per DV and logged, so the need is never dropped silently. */
    private void notSent(
            DbTransaction tx, Task task, NotificatieRepository.ForSending sealed, String reason, String why) {
        tasks.complete(tx, task);
        metrics.invalidAddressReportNotSent(sealed.oin(), reason);
        LOG.info(
                () -> "invalid address of notification " + sealed.id() + " not reported to the Profielservice: " + why);
    }

    /** A report that keeps failing inside the NMC is parked like one the Profielservice keeps refusing. */
    @Override
    public void onExhausted(DbTransaction tx, Task task, TaskRepository taskRepository, String error) {
        taskRepository.markFailed(tx, task, error);
        metrics.invalidReportParked();
    }
}
