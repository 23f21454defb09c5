package nl.overheid.moz.nmc.webhook;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import nl.overheid.moz.nmc.trace.Span;

/**
 * One webhook call on {@code java.net.http}: redirects are not followed, connecting and the whole exchange
 * have short time-outs, and an answer longer than the cap is cut off and counts as a failure. The answer's
 * body is never read into memory beyond counting it, nor logged.
 */
public final class WebhookClient {

    static final String MEDIA_TYPE = "application/cloudevents-batch+json";

    /** The result of one call: a 2xx, or a short reason (never the DV's text). */
    public sealed interface Outcome {
        record Delivered(int status) implements Outcome {}

        record Failed(String reason) implements Outcome {}
    }

    private final HttpClient client;
    private final WebhookSettings settings;

    public WebhookClient(WebhookSettings settings) {
        this.settings = settings;
        this.client = HttpClient.newBuilder()
                .followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(settings.connectTimeout())
                .version(HttpClient.Version.HTTP_1_1)
                .build();
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
        CompletableFuture<HttpResponse<Long>> exchange =
                client.sendAsync(request, info -> new CappedBody(settings.maxResponseBytes()));
        try {
            // The request time-out ends at the headers; this bounds the answer's body too (a slow drip).
            HttpResponse<Long> response = exchange.get(
                    settings.connectTimeout().plus(settings.readTimeout()).toMillis(), TimeUnit.MILLISECONDS);
            int status = response.statusCode();
            return status / 100 == 2
                    ? new Outcome.Delivered(status)
                    : new Outcome.Failed(status / 100 == 3 ? "redirect-" + status : "http-" + status);
        } catch (TimeoutException e) {
            exchange.cancel(true);
            return new Outcome.Failed("timeout");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof TooLarge) {
                return new Outcome.Failed("response-too-large");
            }
            return new Outcome.Failed(
                    cause instanceof HttpTimeoutException
                            ? "timeout"
                            : cause instanceof IOException ? "connection" : "call");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            exchange.cancel(true);
            return new Outcome.Failed("interrupted");
        }
    }

    /** Counts the answer's bytes and gives up past the cap (no library offers a capped body handler). */
    static final class CappedBody implements HttpResponse.BodySubscriber<Long> {
        private final CompletableFuture<Long> result = new CompletableFuture<>();
        private final long cap;
        private long seen;
        private Flow.Subscription subscription;

        CappedBody(long cap) {
            this.cap = cap;
        }

        @Override
        public CompletionStage<Long> getBody() {
            return result;
        }

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            this.subscription = subscription;
            subscription.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(List<ByteBuffer> items) {
            for (ByteBuffer item : items) {
                seen += item.remaining();
            }
            if (seen > cap && !result.isDone()) {
                subscription.cancel();
                result.completeExceptionally(new TooLarge());
            }
        }

        @Override
        public void onError(Throwable throwable) {
            result.completeExceptionally(throwable);
        }

        @Override
        public void onComplete() {
            result.complete(seen);
        }
    }

    static final class TooLarge extends IOException {
        TooLarge() {
            super("webhook answer over the size cap", null);
        }
    }
}
