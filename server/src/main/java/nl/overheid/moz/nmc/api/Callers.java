package nl.overheid.moz.nmc.api;

import io.helidon.webserver.http.ServerRequest;
import nl.overheid.moz.nmc.register.Dienstverlener;

/** The authenticated caller of a request (a DV or an operator), put in the request context by {@link ApiFilter}. */
public final class Callers {

    private Callers() {}

    /** The authenticated operator of an operator API call. */
    public static OperatorAuthenticator.Operator operator(ServerRequest request) {
        return request.context()
                .get(OperatorAuthenticator.Operator.class)
                .orElseThrow(() -> new IllegalStateException("operator call without an authenticated operator"));
    }

    public static Dienstverlener of(ServerRequest request) {
        return request.context()
                .get(Dienstverlener.class)
                .orElseThrow(() -> new IllegalStateException("DV call without an authenticated caller"));
    }
}
