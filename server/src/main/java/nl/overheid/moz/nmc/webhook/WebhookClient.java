package nl.overheid.moz.nmc.webhook;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import nl.overheid.moz.nmc.outbound.BoundedHttpClient;
import nl.overheid.moz.nmc.trace.Span;

/**
 * One webhook call over a {@link BoundedHttpClient}: redirects are not followed, the whole exchange (connecting,
 * the headers and the answer's body) ends within {@code connect-timeout + read-timeout}, and an answer longer than
 * {@code max-response-bytes} is cut off and counts as a failure. The answer's body is never read beyond that, nor
 * logged.
 */
public final class WebhookClient {

    static final String MEDIA_TYPE = "application/cloudevents-batch+json";

    /** The result of one call: a 2xx, or a short reason (never the DV's text). */
    public sealed interface Outcome {
        record Delivered(int status) implements Outcome {}

        record Failed(String reason) implements Outcome {}
    }

    private final BoundedHttpClient client;
    private final WebhookSettings settings;

    public WebhookClient(WebhookSettings settings) {
        this.settings = settings;
        this.client = BoundedHttpClient.create(
                "webhook",
                settings.connectTimeout(),
                settings.connectTimeout().plus(settings.readTimeout()),
                settings.maxResponseBytes());
    }

    public Outcome post(URI url, String bearerToken, String cursor, byte[] batch, Span span) {
        HttpRequest request = HttpRequest.newBuilder(url)
                .timeout(settings.readTimeout())
                .header("Authorization", "Bearer " + bearerToken)
                .header("Content-Type", MEDIA_TYPE)
                .header("NMC-Cursor", cursor)
                .header("traceparent", span.traceparent())
                .POST(HttpRequest.BodyPublishers.ofByteArray(batch))
                .build();
        try {
            int status =
                    client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
            return status / 100 == 2
                    ? new Outcome.Delivered(status)
                    : new Outcome.Failed(status / 100 == 3 ? "redirect-" + status : "http-" + status);
        } catch (HttpTimeoutException e) {
            return new Outcome.Failed("timeout");
        } catch (BoundedHttpClient.TooLarge e) {
            return new Outcome.Failed("response-too-large");
        } catch (IOException e) {
            return new Outcome.Failed("connection");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Outcome.Failed("interrupted");
        }
    }
}
