package nl.overheid.moz.nmc.profiel;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.logging.LogContext;
import nl.overheid.moz.nmc.outbound.BoundedHttpClient;
import nl.overheid.moz.nmc.outbound.UuidV7;
import nl.overheid.moz.nmc.profiel.generated.ApiClient;
import nl.overheid.moz.nmc.profiel.generated.ApiException;
import nl.overheid.moz.nmc.profiel.generated.api.ProfielApi;
import nl.overheid.moz.nmc.profiel.generated.model.ContactType;
import nl.overheid.moz.nmc.profiel.generated.model.ContactgegevenResponse;
import nl.overheid.moz.nmc.profiel.generated.model.IdentificatieType;
import nl.overheid.moz.nmc.profiel.generated.model.PartijIdentificatieRequest;
import nl.overheid.moz.nmc.profiel.generated.model.PartijRequest;
import nl.overheid.moz.nmc.profiel.generated.model.PartijResponse;
import nl.overheid.moz.nmc.profiel.generated.model.ScopeResponse;
import nl.overheid.moz.nmc.profiel.generated.model.VoorkeurType;
import nl.overheid.moz.nmc.trace.FailedCalls;
import nl.overheid.moz.nmc.trace.Span;

/**
 * {@link Profielservice} on the client generated from {@code api-spec/profielservice.yaml} (the real contract), over
 * a {@link BoundedHttpClient}: every exchange, body included, within {@code profielservice.read-timeout} and
 * {@code max-answer-bytes}.
 *
 * <p>Only the Profielservice's own 404 means "no such party" ({@code title} "Partij niet gevonden", no {@code type}
 * or {@code about:blank}, as its code answers it); a 404 of any other shape — a misrouted call, a gateway's page —
 * is the call failing and postpones, so a wrong route can never end notifications {@code geen-contactgegevens}. A
 * 200 without its {@code contactgegevens} list is outside the contract: postponed too. A contact type or a preference
 * the NMC does not know (the contract's enums may grow) is read as unknown and never chosen, instead of failing the
 * whole answer. Every failed call is one WARNING with its status or reason, its trace and its FSC transaction id
 * ({@link FailedCalls}); a body is never logged, since it holds the number and the addresses.
 */
public final class ProfielserviceClient implements Profielservice {

    private static final Logger LOG = Logger.getLogger(ProfielserviceClient.class.getName());
    private static final String LOOKUP = "Profielservice POST /partij";
    private static final String REMOVE = "Profielservice DELETE /contactgegeven/{id}";
    private static final String LOOKUP_NEXT = "the send is postponed";
    private static final String REMOVE_NEXT = "the delete is retried later";
    /** The titles of the Profielservice's own 404s (its {@code Problems.notFound} calls). */
    static final String PARTY_NOT_FOUND = "Partij niet gevonden";

    static final String CONTACT_NOT_FOUND = "Contactgegeven niet gevonden";

    private final ProfielApi api;
    private final ObjectMapper mapper;
    private final ProfielserviceSettings settings;
    private final Clock clock;

    public ProfielserviceClient(ProfielserviceSettings settings, Clock clock) {
        this.settings = settings;
        this.clock = clock;
        BoundedHttpClient http = BoundedHttpClient.create(
                "profielservice", settings.connectTimeout(), settings.readTimeout(), settings.maxAnswerBytes());
        this.mapper = ApiClient.createDefaultObjectMapper()
                .registerModule(new SimpleModule()
                        .addDeserializer(ContactType.class, lenient(ContactType::fromValue))
                        .addDeserializer(VoorkeurType.class, lenient(VoorkeurType::fromValue))
                        .addDeserializer(IdentificatieType.class, lenient(IdentificatieType::fromValue)));
        ApiClient client =
                new ApiClient(http.asBuilder(), mapper, settings.baseUrl().replaceAll("/+$", ""));
        client.setReadTimeout(settings.readTimeout());
        this.api = new ProfielApi(client);
    }

    @Override
    public Call call(Span span) {
        return new Call(
                span,
                settings.fscGrantHash() == null ? null : UuidV7.next(clock).toString());
    }

    @Override
    public Lookup lookUp(Identification party, String dienstverlenerNaam, String dienstNaam, Call call) {
        PartijRequest request = new PartijRequest()
                .identificatieType(IdentificatieType.fromValue(party.type().name()))
                .identificatieNummer(party.number())
                .dienstverlener(dienstverlenerNaam)
                .dienstNaam(dienstNaam);
        try (LogContext.Scope context = fscContext(call)) {
            PartijResponse answer =
                    api.getPartij(request, call.span().traceparent(), settings.fscGrantHash(), fscTransactionId(call));
            if (answer == null || answer.getContactgegevens() == null) {
                warn(LOOKUP, "a 200 without contactgegevens", call, LOOKUP_NEXT);
                return new Lookup.Unavailable("contract");
            }
            List<AddressChoice.Contact> contacts =
                    new ArrayList<>(answer.getContactgegevens().size());
            for (ContactgegevenResponse entry : answer.getContactgegevens()) {
                if (entry != null) {
                    contacts.add(contact(entry));
                }
            }
            return new Lookup.Found(contacts);
        } catch (ApiException e) {
            if (e.getCode() == 404 && ownNotFound(e.getResponseBody(), PARTY_NOT_FOUND)) {
                return new Lookup.PartyUnknown();
            }
            warn(
                    LOOKUP,
                    e.getCode() == 404 ? "a 404 that is not the Profielservice's own" : logReason(e),
                    call,
                    LOOKUP_NEXT);
            return new Lookup.Unavailable(reason(e));
        } catch (RuntimeException e) {
            warn(LOOKUP, "an answer outside the contract", call, LOOKUP_NEXT);
            return new Lookup.Unavailable("contract");
        }
    }

    @Override
    public Removal remove(UUID contactgegevenId, Identification party, Call call) {
        PartijIdentificatieRequest body = new PartijIdentificatieRequest()
                .identificatieType(IdentificatieType.fromValue(party.type().name()))
                .identificatieNummer(party.number());
        try (LogContext.Scope context = fscContext(call)) {
            api.verwijderContactgegeven(
                    contactgegevenId, body, call.span().traceparent(), settings.fscGrantHash(), fscTransactionId(call));
            return new Removal.Removed();
        } catch (ApiException e) {
            if (e.getCode() == 404 && ownNotFound(e.getResponseBody(), CONTACT_NOT_FOUND)) {
                return new Removal.AlreadyGone();
            }
            warn(
                    REMOVE,
                    e.getCode() == 404 ? "a 404 that is not the Profielservice's own" : logReason(e),
                    call,
                    REMOVE_NEXT);
            return new Removal.Unavailable(reason(e));
        } catch (RuntimeException e) {
            warn(REMOVE, "an answer outside the contract", call, REMOVE_NEXT);
            return new Removal.Unavailable("contract");
        }
    }

    private static AddressChoice.Contact contact(ContactgegevenResponse entry) {
        List<AddressChoice.Scope> scopes = new ArrayList<>();
        if (entry.getScopes() != null) {
            for (ScopeResponse scope : entry.getScopes()) {
                if (scope != null) {
                    scopes.add(new AddressChoice.Scope(scope.getDienstverlenerNaam(), scope.getDienstNaam()));
                }
            }
        }
        OffsetDateTime updated = entry.getLastUpdated();
        Instant lastUpdated = updated == null ? null : updated.toInstant();
        return new AddressChoice.Contact(
                entry.getId(),
                entry.getType() == null ? null : entry.getType().getValue(),
                entry.getWaarde(),
                Boolean.TRUE.equals(entry.getIsGeverifieerd()),
                Boolean.TRUE.equals(entry.getIsDefault()),
                lastUpdated,
                scopes);
    }

    /** Whether a 404's body is the Profielservice's own problem with this title (no type, or about:blank). */
    private boolean ownNotFound(String body, String title) {
        try {
            JsonNode problem = mapper.readTree(body == null ? "" : body);
            if (problem == null || !problem.isObject()) {
                return false;
            }
            JsonNode type = problem.get("type");
            boolean blank = type == null || type.isNull() || "about:blank".equals(type.asText());
            return blank
                    && title.equals(problem.path("title").asText(null))
                    && problem.path("status").asInt(404) == 404;
        } catch (IOException e) {
            return false;
        }
    }

    private UUID fscTransactionId(Call call) {
        return call.fscTransactionId() == null ? null : UUID.fromString(call.fscTransactionId());
    }

    private static LogContext.Scope fscContext(Call call) {
        return LogContext.with(LogContext.FSC_TRANSACTION_ID, call.fscTransactionId());
    }

    private static void warn(String what, String reason, Call call, String next) {
        FailedCalls.warn(
                LOG,
                what,
                reason
                        + (call.fscTransactionId() == null
                                ? ""
                                : " (Fsc-Transaction-Id " + call.fscTransactionId() + ")"),
                call.span(),
                next);
    }

    private static String reason(ApiException e) {
        return e.getCode() > 0 ? "http-" + e.getCode() : "connection";
    }

    private static String logReason(ApiException e) {
        return e.getCode() > 0
                ? FailedCalls.status(e.getCode(), "profielservice.fsc.grant-hash")
                : FailedCalls.exception(e.getCause() == null ? e : e.getCause());
    }

    /** A deserializer of a generated enum that reads a value it does not know as null instead of failing. */
    private static <E> JsonDeserializer<E> lenient(Function<String, E> fromValue) {
        return new JsonDeserializer<>() {
            @Override
            public E deserialize(JsonParser parser, DeserializationContext context) throws IOException {
                try {
                    return fromValue.apply(parser.getValueAsString());
                } catch (IllegalArgumentException unknown) {
                    return null;
                }
            }
        };
    }
}
