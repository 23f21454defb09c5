package nl.overheid.moz.nmc.simulator;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code POST /api/ldv/v1/dataverwerkingen} ({@code dataverwerkingVastleggen}): validates the body against
 * {@code Dataverwerking}, stores it once per ({@code trace_id}, {@code span_id}) and acknowledges every valid
 * call with 201 {@code {"id": "<trace_id>-<span_id>"}}. A record sent again is acknowledged again and stored
 * once: the first one stays, with its first acknowledgement time. Logs the id only (hex the schema checked),
 * never a name or an attribute.
 */
final class DataverwerkingEndpoint extends ContractEndpoint {

    /** {@code #/components/schemas/Attribuut}. */
    private static final ContractSchema ATTRIBUUT = ContractSchema.object()
            .required("key", ContractSchema.string().minLength(1).maxLength(200))
            .required("value", ContractSchema.string().maxLength(2000))
            .closed();

    /** {@code #/components/schemas/Resource} (open: it does not forbid other properties). */
    private static final ContractSchema RESOURCE = ContractSchema.object()
            .required("attributes", ContractSchema.array(ATTRIBUUT).maxItems(20));

    /** {@code #/components/schemas/Dataverwerking}. */
    static final ContractSchema DATAVERWERKING = ContractSchema.object()
            .required("trace_id", ContractSchema.string().pattern("^[0-9a-f]{32}$"))
            .required("span_id", ContractSchema.string().pattern("^[0-9a-f]{16}$"))
            .optional("parent_span_id", ContractSchema.string().pattern("^[0-9a-f]{16}$"))
            .required("name", ContractSchema.string().minLength(1).maxLength(200))
            .required("start_time", ContractSchema.string().format(ContractSchema.Format.DATE_TIME))
            .required("end_time", ContractSchema.string().format(ContractSchema.Format.DATE_TIME))
            .required(
                    "status_code",
                    ContractSchema.string().enumOf("STATUS_CODE_UNSET", "STATUS_CODE_OK", "STATUS_CODE_ERROR"))
            .optional("resource", RESOURCE)
            .required("attributes", ContractSchema.array(ATTRIBUUT).minItems(1).maxItems(50))
            .closed();

    private final Map<String, LdvSimulator.Record> records = new LinkedHashMap<>();
    private final AtomicInteger acknowledgements = new AtomicInteger();

    DataverwerkingEndpoint(ContractService service) {
        super(
                service,
                LdvSimulator.RECORD_TRANSFORMER,
                "POST /dataverwerkingen",
                "dataverwerkingVastleggen",
                DATAVERWERKING);
    }

    @Override
    Answer handle(Map<String, Object> body, String traceparent) {
        String traceId = (String) body.get("trace_id");
        String spanId = (String) body.get("span_id");
        String id = traceId + "-" + spanId;
        boolean first;
        synchronized (records) {
            first = !records.containsKey(id);
            if (first) {
                records.put(
                        id,
                        new LdvSimulator.Record(
                                traceId,
                                spanId,
                                (String) body.get("parent_span_id"),
                                (String) body.get("name"),
                                ContractSchema.parseDateTime((String) body.get("start_time"))
                                        .orElseThrow(),
                                ContractSchema.parseDateTime((String) body.get("end_time"))
                                        .orElseThrow(),
                                (String) body.get("status_code"),
                                attributes(body.get("attributes")),
                                service.clock()
                                        .instant(), // as late as possible: right before the 201 is handed to Jetty
                                traceparent));
            }
        }
        acknowledgements.incrementAndGet();
        return json(
                201,
                JsonText.write(JsonText.object("id", id)),
                "id=" + id + (first ? " stored" : " known, acknowledged again"));
    }

    /** The schema-valid {@code attributes} list as an ordered map; a key listed twice keeps its last value. */
    private static Map<String, String> attributes(Object list) {
        Map<String, String> attributes = new LinkedHashMap<>();
        for (Object item : (List<?>) list) {
            Map<?, ?> attribute = (Map<?, ?>) item;
            attributes.put((String) attribute.get("key"), (String) attribute.get("value"));
        }
        return Collections.unmodifiableMap(attributes);
    }

    List<LdvSimulator.Record> records() {
        synchronized (records) {
            return List.copyOf(records.values());
        }
    }

    int acknowledgements() {
        return acknowledgements.get();
    }

    void reset() {
        synchronized (records) {
            records.clear();
            acknowledgements.set(0);
        }
    }
}
