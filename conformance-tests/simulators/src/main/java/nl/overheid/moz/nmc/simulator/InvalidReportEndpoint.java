package nl.overheid.moz.nmc.simulator;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code POST /api/profielservice/v1/contactgegevens/ongeldig-meldingen} ({@code emailadresOngeldigMelden}):
 * the body {@code {meldingId, identificerendNummer, soort: "kvk", kanaal: "email", reden: "permanent-failure"}}
 * (schema {@code OngeldigMelding}). Idempotent on {@code meldingId}: the first report is recorded and answered
 * 201, every later one with that id 200 with no new effect (also when its other fields differ); both answer
 * {@code {meldingId}} as sent. A report has no effect on lookups. Logs the melding id and outcome only.
 */
final class InvalidReportEndpoint extends ContractEndpoint {

    /** {@code #/components/schemas/OngeldigMelding}. */
    static final ContractSchema ONGELDIG_MELDING = ContractSchema.object()
            .required("meldingId", ContractSchema.string().format(ContractSchema.Format.UUID))
            .required("identificerendNummer", ContractSchema.string().pattern("^[0-9]{8}$"))
            .required("soort", ContractSchema.string().enumOf("kvk"))
            .required("kanaal", ContractSchema.string().enumOf("email"))
            .required("reden", ContractSchema.string().enumOf("permanent-failure"))
            .closed();

    private final Map<UUID, ProfielserviceSimulator.Report> reports = new LinkedHashMap<>();
    private final AtomicInteger accepted = new AtomicInteger();

    InvalidReportEndpoint(ContractService service) {
        super(service, ProfielserviceSimulator.REPORT_TRANSFORMER, "POST /contactgegevens/ongeldig-meldingen",
                "emailadresOngeldigMelden", ONGELDIG_MELDING);
    }

    @Override
    Answer handle(Map<String, Object> body, String traceparent) {
        String meldingId = (String) body.get("meldingId");
        UUID id = UUID.fromString(meldingId); // the schema checked the 8-4-4-4-12 form
        boolean first;
        synchronized (reports) {
            first = !reports.containsKey(id);
            if (first) {
                Instant now = service.clock().instant();
                reports.put(id, new ProfielserviceSimulator.Report(id, (String) body.get("identificerendNummer"), now));
            }
        }
        accepted.incrementAndGet();
        return json(first ? 201 : 200, JsonText.write(JsonText.object("meldingId", meldingId)),
                "meldingId=" + id + (first ? " recorded" : " known, no new effect"));
    }

    List<ProfielserviceSimulator.Report> reports() {
        synchronized (reports) {
            return List.copyOf(reports.values());
        }
    }

    int accepted() {
        return accepted.get();
    }

    void reset() {
        synchronized (reports) {
            reports.clear();
            accepted.set(0);
        }
    }
}
