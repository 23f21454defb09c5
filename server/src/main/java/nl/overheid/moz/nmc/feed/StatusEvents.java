package nl.overheid.moz.nmc.feed;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.jackson.JsonCloudEventData;
import io.cloudevents.jackson.JsonFormat;
import java.net.URI;
import java.time.ZoneOffset;

/**
 * The event log as CloudEvents 1.0 (structured JSON) following the NL GOV profile, built with the
 * CloudEvents SDK: the one code path for the feed (and the webhook's batches). {@code id} is the event id,
 * {@code subject} the notification id (never the dvRef), {@code sequence} the volgnummer as a string with
 * {@code sequencetype} {@code Integer}, {@code data} {@code {van, naar, reden, versie}}.
 */
public final class StatusEvents {

    public static final String TYPE_PREFIX = "nl.overheid.moz.notificatie.status.";

    private final URI source;
    private final ObjectMapper mapper = new ObjectMapper();

    /** @param source the NMC's CloudEvents {@code source} (a URN with the OIN of the NMC's owner) */
    public StatusEvents(URI source) {
        this.source = source;
    }

    /** Registers the SDK's JSON serialisation of {@link CloudEvent} on a Jackson mapper. */
    public static SimpleModule jacksonModule() {
        return JsonFormat.getCloudEventJacksonModule();
    }

    public CloudEvent cloudEvent(EventRepository.Event event) {
        ObjectNode data = mapper.createObjectNode();
        if (event.from() != null) {
            data.put("van", event.from().dbValue());
        }
        data.put("naar", event.to().dbValue());
        if (event.reden() != null) {
            data.put("reden", event.reden().dbValue());
        }
        data.put("versie", event.volgnummer());
        return CloudEventBuilder.v1()
                .withId(Long.toString(event.id()))
                .withSource(source)
                .withType(TYPE_PREFIX + event.to().dbValue())
                .withSubject(event.notificatie().toString())
                .withTime(event.time().atOffset(ZoneOffset.UTC))
                .withDataContentType("application/json")
                .withExtension("sequence", Integer.toString(event.volgnummer()))
                .withExtension("sequencetype", "Integer")
                .withData("application/json", JsonCloudEventData.wrap(data))
                .build();
    }
}
