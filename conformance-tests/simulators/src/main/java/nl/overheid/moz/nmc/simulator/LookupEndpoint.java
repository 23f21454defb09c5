package nl.overheid.moz.nmc.simulator;

import java.util.List;
import java.util.Map;

/**
 * {@code POST /api/profielservice/v1/contactgegevens/opvragingen} ({@code contactgegevensOpvragen}): the body
 * {@code {identificerendNummer, soort: "kvk"}} (schema {@code Opvraging}) → 200 {@code {emailadres}}, or 404
 * {@code geen-emailvoorkeur} / {@code onbekende-partij}. Changes nothing. Logs the outcome only, never the
 * number or the address.
 */
final class LookupEndpoint extends ContractEndpoint {

    /** {@code #/components/schemas/Opvraging}. */
    static final ContractSchema OPVRAGING = ContractSchema.object()
            .required("identificerendNummer", ContractSchema.string().pattern("^[0-9]{8}$"))
            .required("soort", ContractSchema.string().enumOf("kvk"))
            .closed();

    private final ContactRegistry registry;

    LookupEndpoint(ContractService service, ContactRegistry registry) {
        super(service, ProfielserviceSimulator.LOOKUP_TRANSFORMER, "POST /contactgegevens/opvragingen",
                "contactgegevensOpvragen", OPVRAGING);
        this.registry = registry;
    }

    @Override
    Answer handle(Map<String, Object> body, String traceparent) {
        return switch (registry.lookup((String) body.get("identificerendNummer"))) {
            case ContactRegistry.Address address ->
                    json(200, JsonText.write(JsonText.object("emailadres", address.emailadres())), "emailadres found");
            case ContactRegistry.NoPreference ignored -> problem(404, "geen-emailvoorkeur", "Geen e-mailvoorkeur.",
                    "Deze partij heeft geen e-mailadres als voorkeur voor notificaties opgegeven.", List.of(),
                    "geen-emailvoorkeur");
            case ContactRegistry.UnknownParty ignored -> problem(404, "onbekende-partij", "Onbekende partij.",
                    "Voor dit identificerend nummer is geen partij bekend.", List.of(), "onbekende-partij");
        };
    }
}
