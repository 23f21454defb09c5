package nl.overheid.moz.nmc.bench;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.function.LongFunction;

/**
 * The DV API calls the load generator makes, with made-up data: every request a new dvRef (so none is an
 * idempotent repeat) and an address of {@code example.nl}.
 */
public final class Requests {

    public static final String DECENTRAAL = "/api/nmc/v1/decentraal/notificaties";
    public static final String BULK = DECENTRAAL + "/bulk";
    public static final String FEED = "/api/nmc/v1/notificaties/wijzigingen";

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private final String baseUrl;
    private final String run = UUID.randomUUID().toString().substring(0, 8);

    public Requests(String baseUrl) {
        this.baseUrl = baseUrl;
    }

    /** The single POST's body for notification {@code i}. */
    public String item(String label, long i) {
        return "{\"dvRef\":\"bench-" + run + "-" + label + "-" + i + "\",\"berichttype\":\"" + BenchContext.BERICHTTYPE
                + "\",\"emailadres\":\"ontvanger-" + (i % 100_000) + "@example.nl\","
                + "\"personalisation\":{\"naam\":\"Bedrijf " + (i % 1000) + "\"}}";
    }

    /** Single POSTs, request {@code i} as DV {@code tokens[i % tokens.size()]}. */
    public LongFunction<HttpRequest> single(String label, List<String> tokens) {
        return i -> post(DECENTRAAL, tokens.get((int) (i % tokens.size())), item(label, i));
    }

    /** Bulk POSTs of {@code size} items each, request {@code i} as DV {@code tokens[i % tokens.size()]}. */
    public LongFunction<HttpRequest> bulk(String label, List<String> tokens, int size) {
        return i -> {
            StringBuilder body = new StringBuilder("{\"notificaties\":[");
            for (int k = 0; k < size; k++) {
                body.append(k == 0 ? "" : ",").append(item(label, i * size + k));
            }
            body.append("]}");
            return post(BULK, tokens.get((int) (i % tokens.size())), body.toString());
        };
    }

    /** A page of the feed after {@code cursor} (null: from the oldest event). */
    public HttpRequest feed(String token, String cursor) {
        String query = cursor == null ? "" : "?cursor=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8);
        return HttpRequest.newBuilder(URI.create(baseUrl + FEED + query))
                .timeout(TIMEOUT)
                .header("Authorization", "Bearer " + token)
                .GET()
                .build();
    }

    public HttpRequest post(String path, String token, String body) {
        return post(path, token, body.getBytes(StandardCharsets.UTF_8), false);
    }

    /**
     * A POST of a body built beforehand; with {@code expectContinue} its headers go first and the body only after
     * the server's {@code 100 Continue}, so a call the server refuses at once never sends its body.
     */
    public HttpRequest post(String path, String token, byte[] body, boolean expectContinue) {
        return HttpRequest.newBuilder(URI.create(baseUrl + path))
                .timeout(TIMEOUT)
                .expectContinue(expectContinue)
                .header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json")
                .POST(new ArrayBody(body))
                .build();
    }
}
