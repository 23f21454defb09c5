package nl.overheid.moz.nmc.acceptance;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.helidon.dbclient.DbTransaction;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Collectors;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.db.GroupCommit;
import nl.overheid.moz.nmc.db.SqlStates;
import nl.overheid.moz.nmc.engine.TaskKind;
import nl.overheid.moz.nmc.engine.WorkSignals;
import nl.overheid.moz.nmc.ldv.DataSubjects;
import nl.overheid.moz.nmc.lifecycle.NewNotificatie;
import nl.overheid.moz.nmc.lifecycle.NotificatieRepository;
import nl.overheid.moz.nmc.lifecycle.NotificatieStatus;
import nl.overheid.moz.nmc.lifecycle.Transitions;
import nl.overheid.moz.nmc.observe.NmcMetrics;
import nl.overheid.moz.nmc.planning.NotificatieTasks;
import nl.overheid.moz.nmc.privacy.Envelope;
import nl.overheid.moz.nmc.privacy.Peppers;
import nl.overheid.moz.nmc.profiel.Identification;
import nl.overheid.moz.nmc.refusal.Refusal;
import nl.overheid.moz.nmc.register.Berichttype;
import nl.overheid.moz.nmc.register.Dienstverlener;
import nl.overheid.moz.nmc.register.PlaceholderNames;
import nl.overheid.moz.nmc.register.Register;
import nl.overheid.moz.nmc.trace.Span;

/**
 * Step 1, acceptance: one transaction inserts the notification, its first task and its first event, so the
 * notification is durable before the 202 and its status can be read at once. The dvRef is kept only as an
 * HMAC, the recipient and personalisation only encrypted. A repeat of the same request (same DV, dvRef and
 * payload) returns the same notification and counts against no quota.
 */
public final class Acceptance {

    /** A notification is about now: a geldig_tot further away than this is a mistake (or an overflow). */
    static final Duration MAX_VALIDITY = Duration.ofDays(366);

    private final Database database;
    private final Transitions transitions;
    private final NotificatieTasks tasks;
    private final NotificatieRepository reads;
    private final Register register;
    private final Peppers peppers;
    private final Peppers payloadPeppers;
    private final Envelope envelope;
    private final Clock clock;
    private final ObjectMapper mapper = new ObjectMapper();
    private final WorkSignals signals;
    private final DataSubjects subjects;
    private final AcceptanceQuota quota;
    private final RequiredPersonalisation required;
    private final NmcMetrics metrics;
    /** Single requests of one DV and regime written together; null when group commit is off. */
    private final GroupCommit<GroupKey, Member, Outcome> groups;

    /**
     * How single requests are written: in groups of at most {@code maxSize} (group commit, design §4), or one
     * transaction each ({@code enabled} false).
     */
    public record GroupSettings(boolean enabled, int maxSize) {
        public GroupSettings {
            if (maxSize < 1 || maxSize > CHUNK) {
                throw new IllegalArgumentException("acceptance.group-max-size must be 1 to " + CHUNK);
            }
        }
    }

    private record GroupKey(UUID dvId, String regime) {}

    /** A single request waiting for its group: checked and prepared by its own thread, outside any group. */
    private record Member(Dienstverlener dv, Prepared prepared) {}

    public Acceptance(
            Database database,
            Transitions transitions,
            NotificatieTasks tasks,
            NotificatieRepository reads,
            Register register,
            Peppers peppers,
            Peppers payloadPeppers,
            Envelope envelope,
            DataSubjects subjects,
            AcceptanceQuota quota,
            RequiredPersonalisation required,
            Clock clock,
            WorkSignals signals,
            NmcMetrics metrics,
            GroupSettings group) {
        this.database = database;
        this.transitions = transitions;
        this.tasks = tasks;
        this.reads = reads;
        this.register = register;
        this.peppers = peppers;
        this.payloadPeppers = payloadPeppers;
        this.envelope = envelope;
        this.clock = clock;
        this.signals = signals;
        this.subjects = subjects;
        this.quota = quota;
        this.required = required;
        this.metrics = metrics;
        this.groups = group.enabled() ? new GroupCommit<>(group.maxSize(), this::writeGroup) : null;
        metrics.acceptanceGroupWaiting(() -> groups == null ? 0 : groups.waiting());
    }

    /** What became of one request: accepted (new, or a repeat of an earlier one) or refused. */
    public sealed interface Outcome permits Accepted, Refused {}

    /** The accepted notification (or the one an identical earlier request created), as the DV sees it. */
    public record Accepted(UUID id, NotificatieStatus status, int version, boolean created) implements Outcome {}

    /** A request that was refused; nothing of it is stored. */
    public record Refused(Refusal reason) implements Outcome {}

    /**
     * A validated request in either regime; {@code recipient} is the e-mail address (decentraal) or the
     * identifying number (centraal, of type {@code identificatieType}, the Profielservice's spelling; null in the
     * decentralised regime). Either is stored only encrypted under the notification's data key, the centralised
     * one with its type ({@link Identification#sealed()}), so the type is part of the payload hash too.
     */
    public record Request(
            String regime,
            String dvRef,
            String berichttype,
            String identificatieType,
            String recipient,
            Map<String, String> personalisation,
            Instant validUntil,
            String batchId,
            Span span) {}

    private static final java.util.logging.Logger LOG = java.util.logging.Logger.getLogger(Acceptance.class.getName());

    /** A bulk submission commits this many notifications per transaction. */
    public static final int CHUNK = 100;
    /**
     * Items between two steps of a bulk call's pace: prepared or sealed here ({@link #acceptAll(Dienstverlener, List,
     * Runnable)}), checked or validated by the API. Short steps, so a call that comes in meets the bulk call at its
     * share within ten items' work.
     */
    public static final int STEP_ITEMS = 10;

    /**
     * Accepts a validated request of the DV, or returns the notification an identical earlier request
     * created.
     *
     * @throws Refusal when the DV may not send this berichttype, geldigTot is unusable, the personalisation
     *                           lacks a field the berichttype's template asks for, or the DV's quota is used
     *                           up; nothing is stored then
     */
    public Accepted accept(Dienstverlener dv, Request request) {
        Outcome outcome;
        if (groups == null) {
            outcome = acceptAll(dv, List.of(request)).getFirst();
        } else {
            long started = System.nanoTime();
            Optional<Refusal> refusal = check(dv, request, clock.instant());
            if (refusal.isPresent() && !answeredByARepeat(refusal.get())) {
                throw refusal.get();
            }
            Prepared prepared = refusal.isPresent()
                    ? prepare(0, dv, request, refusal.get())
                    : sealed(prepare(0, dv, request, null));
            long submitted = System.nanoTime();
            metrics.acceptanceStage("voorbereiden", submitted - started);
            outcome = groups.submit(new GroupKey(dv.id(), request.regime()), new Member(dv, prepared));
            metrics.acceptanceStage("groep", System.nanoTime() - submitted);
        }
        return switch (outcome) {
            case Accepted accepted -> accepted;
            case Refused refused -> throw refused.reason();
        };
    }

    /**
     * Writes a group of single requests as {@link #acceptAll} writes a chunk: one quota take, one transaction,
     * one commit, and every member answered only after it. Should the group fail for one member's sake (a
     * constraint, a trigger, a failing commit), each member is written again on its own, so each ends exactly
     * as it would have alone; only when the database cannot be reached do all members get that failure, as
     * each alone would have.
     */
    private void writeGroup(List<GroupCommit.Member<Member, Outcome>> group) {
        Dienstverlener dv = group.getFirst().request().dv();
        Instant now = clock.instant();
        List<Prepared> chunk = new ArrayList<>(group.size());
        for (int i = 0; i < group.size(); i++) {
            chunk.add(group.get(i).request().prepared().at(i));
        }
        metrics.acceptanceGroup(group.size());
        Outcome[] outcomes = new Outcome[group.size()];
        boolean created;
        try {
            created = acceptChunk(dv, chunk, now, outcomes, List.of(), true);
        } catch (RuntimeException e) {
            if (group.size() == 1 || SqlStates.unavailable(e)) {
                throw e;
            }
            metrics.acceptanceGroupFallback();
            writeEachAlone(group, chunk, now);
            return;
        }
        if (created) {
            signals.nudge(TaskKind.VERZENDEN);
        }
        for (int i = 0; i < group.size(); i++) {
            group.get(i).complete(outcomes[i]);
        }
    }

    /** The fallback of a failed group: one transaction per member, each with its own outcome or failure. */
    private void writeEachAlone(List<GroupCommit.Member<Member, Outcome>> group, List<Prepared> chunk, Instant now) {
        boolean created = false;
        for (int i = 0; i < group.size(); i++) {
            GroupCommit.Member<Member, Outcome> member = group.get(i);
            Outcome[] outcome = new Outcome[1];
            try {
                created |=
                        acceptChunk(member.request().dv(), List.of(chunk.get(i).at(0)), now, outcome, List.of(), true);
                member.complete(outcome[0]);
            } catch (RuntimeException e) {
                member.fail(e);
            }
        }
        if (created) {
            signals.nudge(TaskKind.VERZENDEN);
        }
    }

    /**
     * Refuses a bulk submission at once when the DV's quota of the last minute is used up, before its body is read,
     * validated and sealed. Takes nothing: the items still take their slots a chunk at a time, and a submission
     * that gets past this look while the quota runs out has its remaining items refused one by one.
     *
     * @throws Refusal.QuotaExhausted when no slot is left
     */
    public void refuseWhenQuotaUsedUp(Dienstverlener dv) {
        if (quota.usedUp(dv.id(), dv.quotaPerMinute())) {
            throw new Refusal.QuotaExhausted(quota.retryAfter(dv.id()));
        }
    }

    /**
     * Accepts the validated requests of one DV and one regime, each on its own: a refused one stops none of
     * the others. Each counts against the quota like a single request, and a repeat of an earlier request
     * (or of one earlier in the list) yields that notification without counting, even when the template asks for
     * more since: a request that lacks a field the berichttype's template asks for is refused only when it is new.
     * Committed in chunks of {@value #CHUNK}: each chunk looks up which of its items repeat earlier notifications
     * (those are not encrypted again), takes its quota slots in one statement and stores its notifications, events
     * and tasks in one transaction. The outcomes are in the order of {@code requests}.
     */
    public List<Outcome> acceptAll(Dienstverlener dv, List<Request> requests) {
        return acceptAll(dv, requests, () -> {});
    }

    /**
     * {@link #acceptAll(Dienstverlener, List)}, calling {@code step} between steps of the work (every
     * {@value #STEP_ITEMS} items prepared or sealed, and after each chunk's transaction), e.g. to pace the caller.
     */
    public List<Outcome> acceptAll(Dienstverlener dv, List<Request> requests, Runnable step) {
        return acceptAll(dv, requests, step, false);
    }

    /**
     * {@link #acceptAll(Dienstverlener, List, Runnable)} for a later part of one bulk call ({@code partOfAnswered}:
     * earlier items of the call were accepted). A database that cannot be reached then no longer fails the whole
     * call as "nothing changed": the items of the chunk that met it, and all after it, are refused
     * {@link Refusal.StoreUnreachable}, the chunks before stay accepted. So too for a later chunk of this list.
     */
    public List<Outcome> acceptAll(Dienstverlener dv, List<Request> requests, Runnable step, boolean partOfAnswered) {
        Instant now = clock.instant();
        Outcome[] outcomes = new Outcome[requests.size()];
        List<Prepared> prepared = new ArrayList<>(requests.size());
        try {
            for (int i = 0; i < requests.size(); i++) {
                Request request = requests.get(i);
                // its checks read the register and the templates when their caches have expired
                Optional<Refusal> refusal = check(dv, request, now);
                if (refusal.isPresent() && !answeredByARepeat(refusal.get())) {
                    outcomes[i] = new Refused(refusal.get());
                } else {
                    prepared.add(prepare(i, dv, request, refusal.orElse(null)));
                }
                if (i % STEP_ITEMS == STEP_ITEMS - 1) {
                    step.run();
                }
            }
        } catch (RuntimeException e) {
            if (!partOfAnswered || !SqlStates.unavailable(e)) {
                throw e;
            }
            return unreachableFrom(outcomes, 0);
        }
        boolean created = false;
        for (int from = 0; from < prepared.size(); from += CHUNK) {
            try {
                created |= sealAndAccept(
                        dv, prepared.subList(from, Math.min(prepared.size(), from + CHUNK)), now, outcomes, step);
            } catch (RuntimeException e) {
                if (!(partOfAnswered || from > 0) || !SqlStates.unavailable(e)) {
                    throw e;
                }
                // what the failed chunk's transaction had set was rolled back with it
                for (Prepared p : prepared.subList(from, prepared.size())) {
                    outcomes[p.index()] = null;
                }
                unreachableFrom(outcomes, prepared.get(from).index());
                break;
            }
        }
        if (created) {
            signals.nudge(TaskKind.VERZENDEN);
        }
        return List.of(outcomes);
    }

    /**
     * Every item from {@code first} on that has no outcome yet refused {@link Refusal.StoreUnreachable}: the database
     * was lost after earlier items of the call were accepted. Returns the outcomes.
     */
    private static List<Outcome> unreachableFrom(Outcome[] outcomes, int first) {
        int unanswered = 0;
        for (int i = first; i < outcomes.length; i++) {
            if (outcomes[i] == null) {
                outcomes[i] = new Refused(new Refusal.StoreUnreachable());
                unanswered++;
            }
        }
        int count = unanswered;
        LOG.warning(() ->
                "database unreachable in a bulk call after part of it was accepted: " + count + " items answered 503");
        return List.of(outcomes);
    }

    /** One chunk of {@link #acceptAll}: its repeats looked up, the rest sealed, then written in one transaction. */
    private boolean sealAndAccept(
            Dienstverlener dv, List<Prepared> chunk, Instant now, Outcome[] outcomes, Runnable step) {
        // A submission sent again (a retry after a time-out) is mostly repeats: they need no ciphertext, and
        // sealing was about a fifth of a maximal bulk call's CPU. Looked up first, the rest sealed; a repeat
        // committed between the two is still found by the insert, as for any request. A lone request (group
        // commit off) is sealed at once: one encryption costs less than the look-up's round trip.
        List<Transitions.Repeatable> earlier =
                chunk.size() > 1 ? database.inTransaction(tx -> earlier(tx, dv, chunk)) : List.of();
        Repeats repeats = new Repeats(earlier);
        List<Prepared> ready = new ArrayList<>(chunk.size());
        for (Prepared p : chunk) {
            ready.add(repeats.of(p).isPresent() || p.unlessRepeat() != null ? p : sealed(p));
            if (ready.size() % STEP_ITEMS == 0) {
                step.run();
            }
        }
        boolean created = acceptChunk(dv, ready, now, outcomes, earlier, false);
        step.run();
        return created;
    }

    /**
     * A refusal that depends on what has changed since an earlier identical request (the time past its geldigTot, the
     * DV's register entry): such a request is refused only when it is new; a repeat gets the notification the earlier
     * one created (design §3, the contract's idempotency), as a DV whose 202 was lost must learn its id.
     */
    private static boolean answeredByARepeat(Refusal refusal) {
        // and names NotifyNL reads as one, or a placeholder the template asks for since: refused only since a later
        // version or template, so a repeat of a request taken before
        return switch (refusal) {
            case Refusal.Several several -> several.each().stream().allMatch(Acceptance::answeredByARepeat);
            case Refusal.PersonalisationAmbiguous r -> true;
            case Refusal.PersonalisationMissing r -> true;
            case Refusal.ValidUntilPassed r -> true;
            case Refusal.BerichttypeNotAllowed r -> true;
            case Refusal.IdentificatieTypeNotAllowed r -> true;
            default -> false;
        };
    }

    /**
     * What a request refuses on by itself, before anything is stored: every rule it breaks, so the DV hears them all
     * at once. The template's placeholders come from the register's snapshot of NotifyNL's templates, never from
     * NotifyNL itself.
     */
    private Optional<Refusal> check(Dienstverlener dv, Request request, Instant now) {
        List<Refusal> broken = new ArrayList<>(2);
        List<String> ambiguous = PlaceholderNames.sharingAKey(request.personalisation());
        if (!ambiguous.isEmpty()) {
            broken.add(new Refusal.PersonalisationAmbiguous(ambiguous));
        }
        if (!dv.berichttypen().contains(request.berichttype())) {
            broken.add(new Refusal.BerichttypeNotAllowed());
        } else {
            Berichttype type =
                    register.berichttypen(Set.of(request.berichttype())).get(request.berichttype());
            List<String> lacking = type == null ? List.of() : required.missing(type, request.personalisation());
            if (!lacking.isEmpty()) {
                broken.add(new Refusal.PersonalisationMissing(lacking));
            }
        }
        if (request.validUntil() != null && !request.validUntil().isAfter(now)) {
            broken.add(new Refusal.ValidUntilPassed());
        }
        if (request.validUntil() != null && request.validUntil().isAfter(now.plus(MAX_VALIDITY))) {
            broken.add(new Refusal.ValidUntilTooFar());
        }
        if (request.regime().equals("centraal")) {
            Optional<Identification.Type> type = Identification.Type.of(request.identificatieType());
            if (type.isEmpty() || !dv.identificatieTypen().contains(type.get().name())) {
                broken.add(new Refusal.IdentificatieTypeNotAllowed());
            }
            Optional<Identification.Invalid> invalid =
                    type.flatMap(known -> Identification.check(known, request.recipient()));
            invalid.ifPresent(reason -> broken.add(new Refusal.IdentificatieNummerInvalid(
                    reason == Identification.Invalid.ELFPROEF ? "elfproef" : "length")));
        }
        return Refusal.allOf(broken);
    }

    /**
     * A request made ready to store: its HMACs (under every pepper version, for repeats) and, once
     * {@link #sealedBy sealed}, its ciphertexts ({@code sealed} is null before: a repeat is never sealed).
     */
    private record Prepared(
            int index,
            Request request,
            UUID id,
            byte[] dvrefHmac,
            int pepperVersion,
            byte[] payloadHmac,
            int payloadPepperVersion,
            List<byte[]> dvrefHmacs,
            List<byte[]> payloadHmacs,
            Envelope.Sealed sealed,
            Span trace,
            DataSubjects.DataSubject subject,
            Refusal unlessRepeat) {

        /** The same request with its ciphertexts. */
        Prepared with(Envelope.Sealed ciphertexts) {
            return copy(index, ciphertexts);
        }

        /** The same request at another place in a chunk. */
        Prepared at(int newIndex) {
            return copy(newIndex, sealed);
        }

        private Prepared copy(int newIndex, Envelope.Sealed ciphertexts) {
            return new Prepared(
                    newIndex,
                    request,
                    id,
                    dvrefHmac,
                    pepperVersion,
                    payloadHmac,
                    payloadPepperVersion,
                    dvrefHmacs,
                    payloadHmacs,
                    ciphertexts,
                    trace,
                    subject,
                    unlessRepeat);
        }

        NewNotificatie row(UUID dvId, Instant validUntil) {
            return new NewNotificatie(
                    id,
                    dvId,
                    dvrefHmac,
                    pepperVersion,
                    payloadHmac,
                    payloadPepperVersion,
                    request.batchId(),
                    request.berichttype(),
                    request.regime(),
                    validUntil,
                    sealed.ciphertexts().get("ontvanger"),
                    sealed.ciphertexts().get("personalisatie"),
                    sealed.wrappedKey(),
                    sealed.kekVersion(),
                    trace.traceId(),
                    trace.spanId(),
                    subject.id(),
                    subject.type(),
                    subject.pepperVersion());
        }

        /** The idempotency key under the current peppers: equal for equal requests of the DV. */
        String key() {
            return HexFormat.of().formatHex(dvrefHmac) + "/" + HexFormat.of().formatHex(payloadHmac);
        }
    }

    /** {@code unlessRepeat}: the refusal of a request that may only repeat an earlier one (then never sealed). */
    private Prepared prepare(int index, Dienstverlener dv, Request request, Refusal unlessRepeat) {
        int pepperVersion = peppers.currentVersion();
        int payloadPepperVersion = payloadPeppers.currentVersion();
        // under every version for repeats, the current one among them: each HMAC computed once
        Map<Integer, byte[]> payloadHmacs = payloadPeppers.hmacByVersion(out -> writeCanonicalPayload(request, out));
        Map<Integer, byte[]> dvrefHmacs = peppers.dvRefByVersion(dv.id(), request.dvRef());
        UUID id = UUID.randomUUID();
        DataSubjects.DataSubject subject = unlessRepeat != null
                ? null
                : request.regime().equals("centraal")
                        ? subjects.party(identification(request))
                        : subjects.email(request.recipient());
        return new Prepared(
                index,
                request,
                id,
                dvrefHmacs.get(pepperVersion),
                pepperVersion,
                payloadHmacs.get(payloadPepperVersion),
                payloadPepperVersion,
                List.copyOf(dvrefHmacs.values()),
                List.copyOf(payloadHmacs.values()),
                null,
                request.span(),
                subject,
                unlessRepeat);
    }

    /** {@code p} with its recipient and personalisation sealed under a data key of its own; timed per request. */
    private Prepared sealed(Prepared p) {
        long started = System.nanoTime();
        Request request = p.request();
        Prepared sealed = p.with(envelope.seal(
                p.id(), Map.of("ontvanger", recipient(request), "personalisatie", json(request.personalisation()))));
        metrics.acceptanceStage("verzegelen", System.nanoTime() - started);
        return sealed;
    }

    /** The DV's notifications that items of {@code chunk} repeat, under any pepper version. */
    private List<Transitions.Repeatable> earlier(DbTransaction tx, Dienstverlener dv, List<Prepared> chunk) {
        return transitions.findAcceptedAll(
                tx,
                dv.id(),
                chunk.stream().flatMap(p -> p.dvrefHmacs().stream()).toList(),
                chunk.stream().flatMap(p -> p.payloadHmacs().stream()).toList());
    }

    /**
     * One chunk in one transaction, with its quota slots taken first: for a bulk chunk in their own statement, so
     * no lock is held across its long transaction; for a group of single requests ({@code quotaInTransaction}) as
     * the transaction's first statement, a round trip fewer (see {@link AcceptanceQuota}). A repeat needs no slot;
     * what was not used goes back. {@code known}: the repeats looked up before (their items unsealed). Returns
     * whether anything new was stored.
     */
    private boolean acceptChunk(
            Dienstverlener dv,
            List<Prepared> chunk,
            Instant now,
            Outcome[] outcomes,
            List<Transitions.Repeatable> known,
            boolean quotaInTransaction) {
        long begun = System.nanoTime();
        Map<String, Berichttype> types = register.berichttypen(
                chunk.stream().map(p -> p.request().berichttype()).collect(Collectors.toSet()));
        long started = System.nanoTime();
        metrics.acceptanceStage("register", started - begun);
        AcceptanceQuota.Slots before =
                quotaInTransaction ? null : quota.take(dv.id(), dv.quotaPerMinute(), chunk.size());
        long taken = System.nanoTime();
        if (!quotaInTransaction) {
            metrics.acceptanceStage("quotum", taken - started);
        }
        int used;
        // the slots the committed transaction took (a rerun of the transaction takes anew)
        AcceptanceQuota.Slots[] tookSlots = {before};
        try {
            used = database.inTransaction(tx -> {
                long asked = System.nanoTime();
                AcceptanceQuota.Slots slots =
                        quotaInTransaction ? quota.takeIn(tx, dv.id(), dv.quotaPerMinute(), chunk.size()) : before;
                if (quotaInTransaction) {
                    metrics.acceptanceStage("quotum", System.nanoTime() - asked);
                }
                tookSlots[0] = slots;
                // With one pepper version per purpose the insert's unique index finds every repeat; only
                // under a rotation must repeats stored under an older version be looked up first, and so must a
                // request that would be refused for its personalisation, its geldigTot passed or its DV's register
                // entry changed since (a repeat still gets its notification).
                List<Transitions.Repeatable> earlier = new ArrayList<>(known);
                if (slots.granted() < chunk.size()
                        || rotating()
                        || chunk.stream().anyMatch(p -> p.unlessRepeat() != null)) {
                    earlier.addAll(earlier(tx, dv, chunk));
                }
                List<Prepared> toStore = new ArrayList<>();
                List<NewNotificatie> rows = new ArrayList<>();
                // A repeat of an item earlier in the chunk needs no slot: it gets that item's notification.
                Map<String, Prepared> firstOfKey = new HashMap<>();
                Map<Prepared, Prepared> repeatsInChunk = new LinkedHashMap<>();
                Repeats repeats = new Repeats(earlier);
                for (Prepared p : chunk) {
                    Optional<Transitions.Locked> repeat = repeats.of(p);
                    Berichttype type = types.get(p.request().berichttype());
                    Prepared first = firstOfKey.get(p.key());
                    if (repeat.isPresent()) {
                        outcomes[p.index()] = accepted(new Transitions.AcceptResult(repeat.get(), false));
                    } else if (first != null) {
                        // also one whose own checks refused it (a template refreshed between the two): a repeat
                        repeatsInChunk.put(p, first);
                    } else if (p.unlessRepeat() != null) {
                        outcomes[p.index()] = new Refused(p.unlessRepeat());
                    } else if (type == null) {
                        outcomes[p.index()] = new Refused(new Refusal.BerichttypeUnknown());
                    } else if (rows.size() >= slots.granted()) {
                        outcomes[p.index()] = null; // over the quota: answered below, after the commit
                    } else {
                        Instant validUntil = p.request().validUntil() != null
                                ? p.request().validUntil()
                                : type.defaultValidity() == null ? null : now.plus(type.defaultValidity());
                        toStore.add(p);
                        rows.add(p.row(dv.id(), validUntil));
                        firstOfKey.put(p.key(), p);
                    }
                }
                List<Transitions.AcceptResult> stored = transitions.acceptAll(tx, rows);
                List<Transitions.Locked> created = new ArrayList<>();
                for (int i = 0; i < stored.size(); i++) {
                    outcomes[toStore.get(i).index()] = accepted(stored.get(i));
                    if (stored.get(i).created()) {
                        created.add(stored.get(i).notificatie());
                    }
                }
                repeatsInChunk.forEach((repeat, first) -> outcomes[repeat.index()] = switch (outcomes[first.index()]) {
                    case Accepted a -> new Accepted(a.id(), a.status(), a.version(), false);
                    case Refused r -> r;
                });
                tasks.planFirstSends(
                        tx,
                        created,
                        types.values().stream()
                                .collect(Collectors.toMap(Berichttype::code, Berichttype::notifyService)),
                        now);
                return created.size();
            });
        } catch (RuntimeException e) {
            if (!quotaInTransaction) {
                quota.giveBack(before, before.granted());
            }
            throw e;
        }
        long committed = System.nanoTime();
        metrics.acceptanceStage("transactie", committed - taken);
        // what a repeat did not use goes back after the commit, in both modes: only a chunk with repeats pays for it
        quota.giveBack(tookSlots[0], tookSlots[0].granted() - used);
        if (chunk.stream().anyMatch(p -> outcomes[p.index()] == null)) {
            Refused exhausted = new Refused(new Refusal.QuotaExhausted(quota.retryAfter(dv.id())));
            chunk.stream().filter(p -> outcomes[p.index()] == null).forEach(p -> outcomes[p.index()] = exhausted);
        }
        metrics.acceptanceStage("teruggeven", System.nanoTime() - committed);
        return used > 0;
    }

    /**
     * The earlier notifications a chunk's items may repeat, by their dvRef HMAC: each item finds its own in a look-up
     * or two (one per pepper version), where a scan of the whole list per item made a chunk of a hundred repeats ten
     * thousand comparisons, a fifth of what a bulk call of repeats allocated (JFR, benchmark {@code flood}).
     */
    private static final class Repeats {
        private final List<Transitions.Repeatable> earlier;
        /** Positions in {@code earlier}, by dvRef HMAC: the first match in the list's order is the one answered. */
        private final Map<ByteBuffer, List<Integer>> byDvref = new HashMap<>();

        Repeats(List<Transitions.Repeatable> earlier) {
            this.earlier = earlier;
            for (int i = 0; i < earlier.size(); i++) {
                byDvref.computeIfAbsent(ByteBuffer.wrap(earlier.get(i).dvrefHmac()), k -> new ArrayList<>(1))
                        .add(i);
            }
        }

        /** The earlier notification {@code p} repeats: the same dvRef and payload under any pepper version. */
        Optional<Transitions.Locked> of(Prepared p) {
            int first = Integer.MAX_VALUE;
            for (byte[] dvref : p.dvrefHmacs()) {
                for (int i : byDvref.getOrDefault(ByteBuffer.wrap(dvref), List.of())) {
                    byte[] payload = earlier.get(i).payloadHmac();
                    if (i < first && p.payloadHmacs().stream().anyMatch(h -> Arrays.equals(h, payload))) {
                        first = i;
                    }
                }
            }
            return first == Integer.MAX_VALUE
                    ? Optional.empty()
                    : Optional.of(earlier.get(first).notificatie());
        }
    }

    private boolean rotating() {
        return peppers.versionCount() > 1 || payloadPeppers.versionCount() > 1;
    }

    private static Accepted accepted(Transitions.AcceptResult acceptance) {
        Transitions.Locked n = acceptance.notificatie();
        return new Accepted(n.id(), n.status(), n.version(), acceptance.created());
    }

    /**
     * Writes the payload in one canonical text (sorted keys, instants in UTC), in UTF-8, so that equal requests hash
     * equally.
     * The HMAC (not a plain hash) keeps it from confirming a guessed recipient. {@code batchId} is not part of
     * it (ADR 0024, design §4: a batch id only groups a submission), so a repeat under a new batch id after a
     * time-out answers the first notification, whose own batch id stays.
     */
    static void writeCanonicalPayload(Request request, java.io.OutputStream out) throws java.io.IOException {
        ObjectNode node = CANONICAL.createObjectNode();
        node.put("purpose", "payload");
        node.put("regie", request.regime());
        node.put("dvRef", request.dvRef());
        node.put("berichttype", request.berichttype());
        node.put("ontvanger", recipient(request));
        ObjectNode personalisation = node.putObject("personalisation");
        new TreeMap<>(request.personalisation()).forEach(personalisation::put);
        node.put(
                "geldigTot",
                request.validUntil() == null ? null : request.validUntil().toString());
        // as UTF-8 straight into the HMACs: the same bytes as the text's (CanonicalPayloadTest), without a 4 KB text
        // per bulk item built and encoded again, or an array grown and copied (together a fifth of a bulk call's
        // allocation either way, JFR, benchmark flood)
        CANONICAL.writeValue(out, node);
    }

    /**
     * Writes the canonical payload as {@code JsonNode.toString} wrote it before: Jackson's defaults, but a character
     * beyond the BMP (an emoji) as its four UTF-8 bytes, where Jackson's UTF-8 writer would escape its two surrogates.
     */
    private static final ObjectMapper CANONICAL = com.fasterxml.jackson.databind.json.JsonMapper.builder()
            .enable(com.fasterxml.jackson.core.json.JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8)
            .build();

    /** The recipient as it is sealed and hashed: the address, or the identification with its type. */
    private static String recipient(Request request) {
        return request.regime().equals("centraal") ? identification(request).sealed() : request.recipient();
    }

    /** A centralised request's party; {@link #check} let only a type and number through that belong together. */
    private static Identification identification(Request request) {
        return new Identification(
                Identification.Type.of(request.identificatieType()).orElseThrow(), request.recipient());
    }

    private String json(Map<String, String> personalisation) {
        try {
            return mapper.writeValueAsString(new TreeMap<>(personalisation));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
