package nl.overheid.moz.nmc.api;

import io.helidon.http.Header;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.WritableHeaders;
import java.util.List;

/**
 * The headers every response carries: {@code API-Version} ({@code /core/version-header}) and the security headers
 * of the NL API Design Rules ({@code /core/transport/security-headers}). {@code Cache-Control: no-store} is the
 * default; a handler that means its answer to be cached (the public JWKS) replaces it. HSTS is sent also over plain
 * HTTP behind the TLS-terminating proxy; browsers take it only from HTTPS answers, where it belongs.
 */
public final class SecurityHeaders {

    private static final List<Header> SECURITY = List.of(
            HeaderValues.createCached(HeaderNames.CACHE_CONTROL, "no-store"),
            HeaderValues.createCached(HeaderNames.create("Content-Security-Policy"), "frame-ancestors 'none'"),
            HeaderValues.createCached(HeaderNames.STRICT_TRANSPORT_SECURITY, "max-age=31536000"),
            HeaderValues.X_CONTENT_TYPE_OPTIONS_NOSNIFF,
            HeaderValues.createCached(HeaderNames.create("X-Frame-Options"), "DENY"));

    private final Header apiVersion;

    public SecurityHeaders(String apiVersion) {
        this.apiVersion = HeaderValues.createCached(HeaderNames.create("API-Version"), apiVersion);
    }

    /**
     * Sets them on a response's headers, replacing what was there; an {@code API-Version} already set (the operator
     * API's or the callback's own, by {@link ApiFilter}) stays.
     */
    public void apply(WritableHeaders<?> headers) {
        headers.setIfAbsent(apiVersion);
        SECURITY.forEach(headers::set);
    }

    /**
     * A filter for the management port's routing (the observe endpoints): the headers on every answer, set again just
     * before it is sent, since Helidon's health observer sets {@code no-cache} itself and the rules ask for
     * {@code no-store}.
     */
    public io.helidon.webserver.http.Filter filter() {
        return (chain, request, response) -> {
            apply(response.headers());
            response.beforeSend(() -> apply(response.headers()));
            chain.proceed();
        };
    }
}
