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
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The IAM gateway's signing keys, cached. Loaded at start and fetched again when they are older than the refresh
 * interval (so a key the gateway withdrew stops working) or when a token names an unknown {@code kid} (so a new
 * key needs no restart). Every fetch, for whatever reason, counts against a budget per minute: a flood of tokens
 * with made-up kids costs the gateway at most that many fetches, and an unknown kid beyond it is refused at once.
 * A failed fetch keeps the keys we have.
 */
public final class JwksSource {

    private static final Logger LOG = Logger.getLogger(JwksSource.class.getName());
    private static final Duration WINDOW = Duration.ofMinutes(1);
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final URI uri;
    private final Duration refreshInterval;
    private final int maxFetchesPerMinute;
    private final Clock clock;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
    private final ReentrantLock fetching = new ReentrantLock();
    /** Moments of the fetches within the last minute; guarded by {@link #fetching}. */
    private final Deque<Instant> fetches = new ArrayDeque<>();

    private volatile JwkKeys keys;
    private volatile Instant loadedAt;

    public JwksSource(URI uri, Duration refreshInterval, int maxFetchesPerMinute, Clock clock) {
        if (maxFetchesPerMinute < 1 || refreshInterval.isNegative() || refreshInterval.isZero()) {
            throw new IllegalArgumentException(
                    "auth.jwks-max-fetches-per-minute and auth.jwks-refresh-interval " + "must be positive");
        }
        this.uri = uri;
        this.refreshInterval = refreshInterval;
        this.maxFetchesPerMinute = maxFetchesPerMinute;
        this.clock = clock;
        fetching.lock();
        try {
            withinBudget();
            this.keys = load();
            this.loadedAt = clock.instant();
        } finally {
            fetching.unlock();
        }
    }

    public JwkKeys keys() {
        return keys;
    }

    /** The key with this id; empty when the gateway does not publish it (or the budget allows no fetch now). */
    public Optional<Jwk> key(String keyId) {
        boolean fetched = false;
        if (stale() && fetching.tryLock()) {
            // One request fetches; the others go on with the keys we have meanwhile.
            try {
                fetched = stale() && fetch("the cached keys are older than " + refreshInterval);
            } finally {
                fetching.unlock();
            }
        }
        Optional<Jwk> key = keys.forKeyId(keyId);
        if (key.isEmpty() && !fetched) {
            fetching.lock();
            try {
                // Another request may have fetched meanwhile.
                key = keys.forKeyId(keyId);
                if (key.isEmpty() && fetch("a token names an unknown key")) {
                    key = keys.forKeyId(keyId);
                }
            } finally {
                fetching.unlock();
            }
        }
        return key;
    }

    private boolean stale() {
        return !loadedAt.plus(refreshInterval).isAfter(clock.instant());
    }

    /** Fetches if the budget allows; true when new keys were loaded. Runs under {@link #fetching}. */
    private boolean fetch(String why) {
        if (!withinBudget()) {
            LOG.fine(() -> "JWKS not fetched (" + why + "): " + maxFetchesPerMinute + " fetches in the last minute");
            return false;
        }
        try {
            keys = load();
            loadedAt = clock.instant();
            return true;
        } catch (RuntimeException e) {
            LOG.log(
                    Level.WARNING,
                    "cannot fetch the IAM gateway's JWKS (" + why + "); keeping the keys we have: " + e.getMessage());
            return false;
        }
    }

    /** Takes one fetch from the budget of the last minute, if there is one left. */
    private boolean withinBudget() {
        Instant now = clock.instant();
        while (!fetches.isEmpty() && !fetches.peekFirst().plus(WINDOW).isAfter(now)) {
            fetches.removeFirst();
        }
        if (fetches.size() >= maxFetchesPerMinute) {
            return false;
        }
        fetches.addLast(now);
        return true;
    }

    private JwkKeys load() {
        String json;
        try {
            if ("file".equals(uri.getScheme())) {
                json = Files.readString(Path.of(uri));
            } else {
                HttpResponse<String> response = http.send(
                        HttpRequest.newBuilder(uri).timeout(TIMEOUT).GET().build(),
                        HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() != 200) {
                    throw new IllegalStateException("JWKS " + uri + " answered " + response.statusCode());
                }
                json = response.body();
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the JWKS at " + uri + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the JWKS", e);
        }
        try (JsonReader reader = Json.createReader(new StringReader(json))) {
            JsonObject document = reader.readObject();
            return JwkKeys.builder().json(document).build();
        } catch (RuntimeException e) {
            throw new IllegalStateException("the JWKS at " + uri + " is not a JWK set", e);
        }
    }
}
