package nl.overheid.moz.nmc.api;

import io.helidon.webserver.http.ServerRequest;
import nl.overheid.moz.nmc.register.Dienstverlener;

/** The authenticated DV of a request, put in the request context by {@link ApiFilter}. */
public final class Callers {

    private Callers() {
    }

    public static Dienstverlener of(ServerRequest request) {
        return request.context().get(Dienstverlener.class)
                .orElseThrow(() -> new IllegalStateException("DV call without an authenticated caller"));
    }
}
