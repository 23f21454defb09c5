package nl.overheid.moz.nmc.api;

import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.Duration;
import nl.overheid.moz.nmc.api.generated.dv.SleutelsService;
import nl.overheid.moz.nmc.webhook.SigningKeys;

/**
 * The NMC's public signing keys (JWKS), without authentication: at {@code /api/nmc/v1/sleutels} (the contract)
 * and at the host's well-known location {@code /.well-known/jwks.json} ({@link #wellKnown()}).
 */
public final class KeysResource extends SleutelsService {

    public static final String WELL_KNOWN_PATH = "/.well-known/jwks.json";

    private final SigningKeys keys;
    private final Responses responses;
    private final String cacheControl;

    public KeysResource(SigningKeys keys, Responses responses, Duration maxAge) {
        this.keys = keys;
        this.responses = responses;
        this.cacheControl = "public, max-age=" + maxAge.toSeconds();
    }

    @Override
    protected void handleSleutelsOpvragen(ServerRequest request, ServerResponse response) {
        send(response);
    }

    /** The same document at {@code /.well-known/jwks.json}. */
    public Handler wellKnown() {
        return (request, response) -> send(response);
    }

    private void send(ServerResponse response) {
        response.header(HeaderNames.CACHE_CONTROL, cacheControl);
        responses.json(response, Status.OK_200, keys.jwks());
    }

    @Override
    public void afterStop() {
        // the generated default prints to stdout; the server logs its own shutdown
    }
}
