package nl.overheid.moz.nmc.api;

import io.helidon.security.jwt.jwk.Jwk;
import io.helidon.security.jwt.jwk.JwkKeys;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The IAM gateway's signing keys. Loaded at start; an unknown {@code kid} triggers a refresh (at most once
 * per {@link #MIN_REFRESH_INTERVAL}), so a key rotation at the gateway needs no restart and a flood of
 * forged kids cannot hammer the gateway.
 */
public final class JwksSource {

    private static final Logger LOG = Logger.getLogger(JwksSource.class.getName());
    static final Duration MIN_REFRESH_INTERVAL = Duration.ofSeconds(30);

    private final URI uri;
    private final Clock clock;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private volatile JwkKeys keys;
    private volatile Instant lastLoad = Instant.MIN;

    public JwksSource(URI uri, Clock clock) {
        this.uri = uri;
        this.clock = clock;
        this.keys = load();
    }

    public JwkKeys keys() {
        return keys;
    }

    public Optional<Jwk> key(String keyId) {
        Optional<Jwk> key = keys.forKeyId(keyId);
        if (key.isEmpty() && refreshAllowed()) {
            synchronized (this) {
                if (refreshAllowed()) {
                    try {
                        keys = load();
                    } catch (RuntimeException e) {
                        LOG.log(Level.WARNING, "cannot refresh the JWKS; keeping the keys we have", e);
                    }
                }
            }
            key = keys.forKeyId(keyId);
        }
        return key;
    }

    private boolean refreshAllowed() {
        return Duration.between(lastLoad, clock.instant()).compareTo(MIN_REFRESH_INTERVAL) >= 0;
    }

    private JwkKeys load() {
        lastLoad = clock.instant();
        String json;
        try {
            if ("file".equals(uri.getScheme())) {
                json = Files.readString(Path.of(uri));
            } else {
                HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5))
                        .GET().build(), HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() != 200) {
                    throw new IllegalStateException("JWKS " + uri + " answered " + response.statusCode());
                }
                json = response.body();
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the JWKS at " + uri, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the JWKS", e);
        }
        try (JsonReader reader = Json.createReader(new StringReader(json))) {
            JsonObject document = reader.readObject();
            return JwkKeys.builder().json(document).build();
        }
    }
}
