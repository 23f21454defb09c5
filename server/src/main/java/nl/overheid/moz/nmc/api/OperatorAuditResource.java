package nl.overheid.moz.nmc.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import nl.overheid.moz.nmc.api.generated.operator.AuditService;
import nl.overheid.moz.nmc.api.generated.operator.ValidatorUtils;
import nl.overheid.moz.nmc.api.generated.operator.model.ActieSoort;
import nl.overheid.moz.nmc.operator.OperatorAudit;

/** The audit of operator actions, newest first (the operator API). */
public final class OperatorAuditResource extends AuditService {

    private final OperatorAudit audit;
    private final Responses responses;
    private final ObjectMapper mapper;

    public OperatorAuditResource(OperatorAudit audit, Responses responses, ObjectMapper mapper) {
        this.audit = audit;
        this.responses = responses;
        this.mapper = mapper;
    }

    @Override
    protected BeheeractiesZoekenOp createBeheeractiesZoekenOp() {
        return new BeheeractiesZoekenOp() {
            // The generated conversion uses the enum's Java name; the contract's values are its spelling.
            @Override
            protected Optional<ActieSoort> actie(ServerRequest request, ValidatorUtils.Validator validator) {
                return request.query()
                        .first("actie")
                        .asOptional()
                        .map(v -> ParameterParsing.parse("actie", v, ActieSoort::fromValue));
            }
        };
    }

    @Override
    protected void handleBeheeractiesZoeken(
            ServerRequest request,
            ServerResponse response,
            Optional<ActieSoort> action,
            Optional<OffsetDateTime> from,
            Optional<OffsetDateTime> until,
            Optional<Long> na,
            Optional<Integer> limit) {
        ParameterParsing.noneWithoutValue(request, "actie", "van", "tot", "na", "limit");
        long before = OperatorParameters.position(na);
        int size = OperatorParameters.limit(limit);
        List<OperatorAudit.Entry> entries = audit.list(new OperatorAudit.Filter(
                action.map(a -> OperatorAudit.Action.of(a.getValue())).orElse(null),
                from.map(OffsetDateTime::toInstant).orElse(null),
                until.map(OffsetDateTime::toInstant).orElse(null),
                before,
                size + 1));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("acties", entries.stream().limit(size).map(this::entry).toList());
        body.put("volgende", entries.size() > size ? entries.get(size - 1).id() : null);
        responses.json(response, Status.OK_200, body);
    }

    private Map<String, Object> entry(OperatorAudit.Entry entry) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("id", entry.id());
        body.put("tijdstip", entry.time());
        body.put("beheerder", entry.operator());
        body.put("actie", entry.action().value());
        body.put("onderwerp", entry.subject());
        body.put("toelichting", entry.explanation());
        try {
            body.put("details", mapper.readTree(entry.details()));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("audit details are not JSON", e);
        }
        return body;
    }

    @Override
    public void afterStop() {
        // the generated default prints to stdout; the server logs its own shutdown
    }
}
