package nl.overheid.moz.nmc.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.helidon.common.media.type.MediaTypes;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerResponse;
import java.nio.charset.StandardCharsets;

/** Writes JSON bodies of the generated models with the NMC's one object mapper. */
public final class Responses {

    private final ObjectMapper mapper;

    public Responses(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    public void json(ServerResponse response, Status status, Object body) {
        response.status(status);
        response.headers().contentType(MediaTypes.APPLICATION_JSON);
        try {
            response.send(mapper.writeValueAsString(body).getBytes(StandardCharsets.UTF_8));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(
                    "cannot serialise " + body.getClass().getSimpleName(), e);
        }
    }

    public void jsonWithLocation(ServerResponse response, Status status, String location, Object body) {
        response.header(HeaderNames.LOCATION, location);
        json(response, status, body);
    }
}
