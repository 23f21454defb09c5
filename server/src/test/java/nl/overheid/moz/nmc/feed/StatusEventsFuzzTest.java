package nl.overheid.moz.nmc.feed;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cloudevents.CloudEvent;
import io.cloudevents.jackson.JsonFormat;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import nl.overheid.moz.nmc.Nmc;
import nl.overheid.moz.nmc.api.ApiDocuments;
import nl.overheid.moz.nmc.api.RequestSchemas;
import nl.overheid.moz.nmc.lifecycle.NotificatieStatus;
import nl.overheid.moz.nmc.lifecycle.Reden;

/**
 * Fuzz target: the CloudEvent serialisation of the feed and the webhook ({@link StatusEvents}, written by the NMC's
 * own mapper). Every event the event log can hold — any id, any moment a timestamptz holds from 1970 to 9999 at
 * microseconds, any notification, volgnummer, pair and reden — becomes JSON valid against the DV contract's
 * {@code CloudEvent}, which the CloudEvents SDK reads back to the same event with the fields of design §4. The seed
 * corpus is {@code StatusEventsFuzzTestInputs/}.
 */
class StatusEventsFuzzTest {

    private static final StatusEvents EVENTS =
            new StatusEvents(URI.create("urn:nld:oin:00000001234567890000:systeem:nmc"));
    private static final ObjectMapper MAPPER = Nmc.objectMapper();
    private static final RequestSchemas CONTRACT = ApiDocuments.load().dvSchemas();
    private static final JsonFormat FORMAT = new JsonFormat();
    private static final long LATEST =
            Instant.parse("9999-12-31T23:59:59.999999Z").getEpochSecond();

    @FuzzTest(maxDuration = "10s")
    void statusEvent(FuzzedDataProvider data) throws Exception {
        NotificatieStatus[] statuses = NotificatieStatus.values();
        Reden[] redenen = Reden.values();
        EventRepository.Event event = new EventRepository.Event(
                data.consumeLong(1, Long.MAX_VALUE),
                Long.toUnsignedString(data.consumeLong()),
                Instant.ofEpochSecond(data.consumeLong(0, LATEST), data.consumeInt(0, 999_999) * 1000L),
                new UUID(data.consumeLong(), data.consumeLong()),
                data.consumeInt(1, Integer.MAX_VALUE),
                data.consumeBoolean() ? null : statuses[data.consumeInt(0, statuses.length - 1)],
                statuses[data.consumeInt(0, statuses.length - 1)],
                data.consumeBoolean() ? null : redenen[data.consumeInt(0, redenen.length - 1)]);

        CloudEvent cloudEvent = EVENTS.cloudEvent(event);
        byte[] json = MAPPER.writeValueAsBytes(List.of(cloudEvent));
        JsonNode written = MAPPER.readTree(json).get(0);
        assertThat(CONTRACT.validate("CloudEvent", written)).as("%s", written).isEmpty();

        CloudEvent read = FORMAT.deserialize(MAPPER.writeValueAsBytes(written));
        assertThat(read.getId()).isEqualTo(Long.toString(event.id()));
        assertThat(read.getSubject()).isEqualTo(event.notificatie().toString());
        assertThat(read.getType())
                .isEqualTo(StatusEvents.TYPE_PREFIX + event.to().dbValue());
        assertThat(read.getTime().toInstant()).isEqualTo(event.time());
        assertThat(read.getExtension("sequence")).isEqualTo(Integer.toString(event.volgnummer()));
        JsonNode payload = MAPPER.readTree(read.getData().toBytes());
        assertThat(payload.path("versie").asInt()).isEqualTo(event.volgnummer());
        assertThat(payload.path("naar").asText()).isEqualTo(event.to().dbValue());
        assertThat(payload.path("van").isMissingNode()).isEqualTo(event.from() == null);
        assertThat(payload.path("reden").isMissingNode()).isEqualTo(event.reden() == null);
    }
}
