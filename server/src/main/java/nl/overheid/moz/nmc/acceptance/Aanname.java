package nl.overheid.moz.nmc.acceptance;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.ArrayList;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import io.helidon.dbclient.DbTransaction;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.engine.TaskKind;
import nl.overheid.moz.nmc.engine.WorkSignals;
import nl.overheid.moz.nmc.ldv.DataSubjects;
import nl.overheid.moz.nmc.lifecycle.NewNotificatie;
import nl.overheid.moz.nmc.lifecycle.NotificatieReads;
import nl.overheid.moz.nmc.lifecycle.NotificatieStatus;
import nl.overheid.moz.nmc.lifecycle.Transitions;
import nl.overheid.moz.nmc.planning.NotificationTasks;
import nl.overheid.moz.nmc.privacy.Envelope;
import nl.overheid.moz.nmc.privacy.Peppers;
import nl.overheid.moz.nmc.register.Berichttype;
import nl.overheid.moz.nmc.register.Dienstverlener;
import nl.overheid.moz.nmc.register.Register;
import nl.overheid.moz.nmc.trace.Span;
import nl.overheid.moz.nmc.trace.TraceContexts;

/**
 * Step 1, acceptance: one transaction inserts the notification, its first task and its first event, so the
 * notification is durable before the 202 and its status can be read at once. The dvRef is kept only as an
 * HMAC, the recipient and personalisation only encrypted. A repeat of the same request (same DV, dvRef and
 * payload) returns the same notification and counts against no quota.
 */
public final class Aanname {

    private static final Duration QUOTA_WINDOW = Duration.ofMinutes(1);
    /** A notification is about now: a geldig_tot further away than this is a mistake (or an overflow). */
    static final Duration MAX_VALIDITY = Duration.ofDays(366);

    private final Database database;
    private final Transitions transitions;
    private final NotificationTasks tasks;
    private final NotificatieReads reads;
    private final Register register;
    private final Peppers peppers;
    private final Peppers payloadPeppers;
    private final Envelope envelope;
    private final Clock clock;
    private final ObjectMapper mapper = new ObjectMapper();
    private final WorkSignals signals;
    private final DataSubjects subjects;

    public Aanname(Database database, Transitions transitions, NotificationTasks tasks, NotificatieReads reads,
                   Register register, Peppers peppers, Peppers payloadPeppers, Envelope envelope,
                   DataSubjects subjects, Clock clock, WorkSignals signals) {
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
    }

    /** The accepted notification (or the one an identical earlier request created), as the DV sees it. */
    public record Accepted(UUID id, NotificatieStatus status, int versie, boolean created) {
    }

    /**
     * A validated request in either regime; {@code ontvanger} is the e-mail address (decentraal) or the
     * identifying number (centraal). Either is stored only encrypted under the notification's data key.
     */
    public record Request(String regie, String dvRef, String berichttype, String ontvanger,
                          Map<String, String> personalisation, Instant geldigTot, String batchId,
                          Optional<String> traceparent) {
    }

    /**
     * Accepts a validated request of the DV, or returns the notification an identical earlier request
     * created.
     *
     * @throws AcceptanceRefused when the DV may not send this berichttype, geldigTot is unusable, or the
     *                           DV's quota is used up; nothing is stored then
     */
    public Accepted accept(Dienstverlener dv, Request request) {
        if (!dv.berichttypen().contains(request.berichttype())) {
            throw new AcceptanceRefused.BerichttypeNotAllowed();
        }
        Instant now = clock.instant();
        if (request.geldigTot() != null && !request.geldigTot().isAfter(now)) {
            throw new AcceptanceRefused.GeldigTotPassed();
        }
        if (request.geldigTot() != null && request.geldigTot().isAfter(now.plus(MAX_VALIDITY))) {
            throw new AcceptanceRefused.GeldigTotTooFar();
        }
        int pepperVersion = peppers.currentVersion();
        int payloadPepperVersion = payloadPeppers.currentVersion();
        byte[] dvrefHmac = peppers.dvRef(pepperVersion, dv.id(), request.dvRef());
        UUID id = UUID.randomUUID();
        Span trace = TraceContexts.acceptance(request.traceparent());
        DataSubjects.DataSubject subject = request.regie().equals("centraal") ? subjects.kvk(request.ontvanger())
                : subjects.email(request.ontvanger());
        Envelope.Sealed sealed = envelope.seal(id, Map.of("ontvanger", request.ontvanger(),
                "personalisatie", json(request.personalisation())));
        Transitions.Acceptance acceptance = database.inTransaction(tx -> {
            Berichttype type = register.berichttype(tx, request.berichttype())
                    .orElseThrow(AcceptanceRefused.BerichttypeUnknown::new);
            Instant geldigTot = request.geldigTot() != null ? request.geldigTot()
                    : type.standaardGeldigheid() == null ? null : now.plus(type.standaardGeldigheid());
            String canonical = canonicalPayload(request);
            byte[] payloadHmac = payloadPeppers.hmac(payloadPepperVersion, canonical);
            NewNotificatie n = new NewNotificatie(id, dv.id(), dvrefHmac, pepperVersion, payloadHmac,
                    payloadPepperVersion, request.batchId(), request.berichttype(), request.regie(), geldigTot,
                    sealed.ciphertexts().get("ontvanger"), sealed.ciphertexts().get("personalisatie"),
                    sealed.wrappedKey(), sealed.kekVersion(), trace.traceId(), trace.spanId(), subject.id(),
                    subject.type(), subject.pepperVersion());
            Optional<Transitions.Locked> earlier = earlierAcceptance(tx, dv, request.dvRef(), canonical);
            if (earlier.isPresent()) {
                return new Transitions.Acceptance(earlier.get(), false);
            }
            register.dienstverlenerLock(tx, dv.id());
            enforceQuota(tx, dv, now);
            Transitions.Acceptance result = transitions.accept(tx, n);
            if (result.created()) {
                tasks.planSend(tx, result.notificatie(), type.notifyService(), now);
            }
            return result;
        });
        if (acceptance.created()) {
            signals.nudge(TaskKind.VERZENDEN);
        }
        Transitions.Locked n = acceptance.notificatie();
        return new Accepted(n.id(), n.status(), n.versie(), acceptance.created());
    }

    /** The notification an identical request created earlier, under any pepper version still configured. */
    private Optional<Transitions.Locked> earlierAcceptance(DbTransaction tx, Dienstverlener dv,
                                                           String dvRef, String canonicalPayload) {
        List<byte[]> payloadHmacs = new ArrayList<>();
        payloadPeppers.versions().forEach(version -> payloadHmacs.add(payloadPeppers.hmac(version, canonicalPayload)));
        return transitions.findAccepted(tx, dv.id(), peppers.dvRefUnderEveryVersion(dv.id(), dvRef), payloadHmacs);
    }

    private void enforceQuota(DbTransaction tx, Dienstverlener dv, Instant now) {
        NotificatieReads.Acceptances recent = reads.acceptedSince(tx, dv.id(), now.minus(QUOTA_WINDOW));
        if (recent.count() >= dv.quotumPerMinuut()) {
            long retryAfter = Math.max(1, Duration.between(now, recent.oldest().plus(QUOTA_WINDOW)).toSeconds() + 1);
            throw new AcceptanceRefused.QuotaExhausted(Duration.ofSeconds(retryAfter));
        }
    }

    /**
     * The payload in one canonical text (sorted keys, instants in UTC) so that equal requests hash equally.
     * The HMAC (not a plain hash) keeps it from confirming a guessed recipient.
     */
    private String canonicalPayload(Request request) {
        ObjectNode node = mapper.createObjectNode();
        node.put("purpose", "payload");
        node.put("regie", request.regie());
        node.put("dvRef", request.dvRef());
        node.put("berichttype", request.berichttype());
        node.put("ontvanger", request.ontvanger());
        ObjectNode personalisation = node.putObject("personalisation");
        new TreeMap<>(request.personalisation()).forEach(personalisation::put);
        node.put("geldigTot", request.geldigTot() == null ? null : request.geldigTot().toString());
        node.put("batchId", request.batchId());
        return node.toString();
    }

    private String json(Map<String, String> personalisation) {
        try {
            return mapper.writeValueAsString(new TreeMap<>(personalisation));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
