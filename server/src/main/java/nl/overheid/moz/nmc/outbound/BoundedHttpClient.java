package nl.overheid.moz.nmc.outbound;

import java.io.IOException;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import nl.overheid.moz.nmc.trace.Tracing;

/**
 * A {@link HttpClient} whose every exchange is bounded as a whole: the answer's headers <em>and</em> its body
 * must arrive within one deadline, and a body longer than a cap is cut off and refused. The JDK's own
 * {@code HttpRequest.timeout} only bounds the wait for the headers, so a party that answers its headers and then
 * drips one byte a minute would hold the calling task (and its lease) forever; and an endless body would fill the
 * heap. Written by hand because no library in the stack bounds the whole exchange; it wraps the JDK client, so the
 * clients generated from the parties' contracts use it unchanged ({@code ApiClient.setHttpClientBuilder} is not
 * enough: the generated code calls {@code send} itself).
 *
 * <p>{@link #send} reads the whole body (capped) within the deadline, then hands the bytes to the caller's
 * {@link HttpResponse.BodyHandler}. A deadline passed is an {@link HttpTimeoutException}, a body over the cap a
 * {@link TooLarge}; in both cases the exchange is cancelled. Redirects are never followed.
 */
public final class BoundedHttpClient extends HttpClient {

    private final String peer;
    private final HttpClient delegate;
    private final Duration deadline;
    private final int maxBodyBytes;

    private BoundedHttpClient(String peer, HttpClient delegate, Duration deadline, int maxBodyBytes) {
        this.peer = peer;
        this.delegate = delegate;
        this.deadline = deadline;
        this.maxBodyBytes = maxBodyBytes;
    }

    /**
     * A client that connects within {@code connectTimeout}, over HTTP/1.1 (FSC's Outway and the parties speak it;
     * no upgrade dance), never follows a redirect, and bounds each exchange by {@code deadline} and
     * {@code maxBodyBytes}. {@code peer} names the party in the traces (each exchange is a CLIENT span of the task run
     * that makes it: {@link Tracing#call}).
     */
    public static BoundedHttpClient create(String peer, Duration connectTimeout, Duration deadline, int maxBodyBytes) {
        if (deadline.isNegative() || deadline.isZero() || maxBodyBytes < 1) {
            throw new IllegalArgumentException("an exchange needs a positive deadline and body cap");
        }
        return new BoundedHttpClient(
                peer,
                HttpClient.newBuilder()
                        .connectTimeout(connectTimeout)
                        .version(HttpClient.Version.HTTP_1_1)
                        .followRedirects(HttpClient.Redirect.NEVER)
                        .build(),
                deadline,
                maxBodyBytes);
    }

    public Duration deadline() {
        return deadline;
    }

    /**
     * A builder that builds this client, for generated clients that take a {@link HttpClient.Builder}; its settings
     * are this client's, and the builder's own setters change nothing.
     */
    public HttpClient.Builder asBuilder() {
        BoundedHttpClient self = this;
        return new HttpClient.Builder() {
            @Override
            public HttpClient.Builder cookieHandler(CookieHandler cookieHandler) {
                return this;
            }

            @Override
            public HttpClient.Builder connectTimeout(Duration duration) {
                return this;
            }

            @Override
            public HttpClient.Builder sslContext(SSLContext sslContext) {
                return this;
            }

            @Override
            public HttpClient.Builder sslParameters(SSLParameters sslParameters) {
                return this;
            }

            @Override
            public HttpClient.Builder executor(Executor executor) {
                return this;
            }

            @Override
            public HttpClient.Builder followRedirects(Redirect policy) {
                return this;
            }

            @Override
            public HttpClient.Builder version(Version version) {
                return this;
            }

            @Override
            public HttpClient.Builder priority(int priority) {
                return this;
            }

            @Override
            public HttpClient.Builder proxy(ProxySelector proxySelector) {
                return this;
            }

            @Override
            public HttpClient.Builder authenticator(Authenticator authenticator) {
                return this;
            }

            @Override
            public HttpClient build() {
                return self;
            }
        };
    }

    /**
     * The exchange as a span of the current run, with exactly the ids of the {@code traceparent} the call carries; one
     * that carries none gets the span's (W3C out). The span takes the method, the host and the status, never the path
     * or query: they may name a person.
     */
    @Override
    public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
            throws IOException, InterruptedException {
        Tracing.Call call = Tracing.call(
                peer,
                request.method(),
                request.uri().getHost(),
                request.uri().getPort(),
                request.headers().firstValue("traceparent"));
        HttpRequest sent = call.traceparent()
                .map(traceparent -> HttpRequest.newBuilder(request, (name, value) -> true)
                        .header("traceparent", traceparent)
                        .build())
                .orElse(request);
        HttpResponse<T> answer;
        try {
            answer = exchange(sent, handler);
        } catch (IOException | InterruptedException | RuntimeException e) {
            call.failed(e);
            throw e;
        }
        call.answered(answer.statusCode());
        return answer;
    }

    private <T> HttpResponse<T> exchange(HttpRequest request, HttpResponse.BodyHandler<T> handler)
            throws IOException, InterruptedException {
        CompletableFuture<HttpResponse<byte[]>> exchange = delegate.sendAsync(request, this::capped);
        HttpResponse<byte[]> answer;
        try {
            answer = exchange.get(deadline.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            exchange.cancel(true);
            throw new HttpTimeoutException("the whole exchange took longer than " + deadline);
        } catch (InterruptedException e) {
            exchange.cancel(true);
            throw e;
        } catch (ExecutionException e) {
            for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
                if (cause instanceof TooLarge tooLarge) {
                    throw tooLarge;
                }
            }
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            throw new IOException(cause == null ? e : cause);
        }
        return replay(answer, handler);
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
        // on another thread: the run's trace goes along, so the call is still its child
        return CompletableFuture.supplyAsync(
                io.opentelemetry.context.Context.current().wrapSupplier(() -> {
                    try {
                        return send(request, handler);
                    } catch (IOException e) {
                        throw new java.util.concurrent.CompletionException(e);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new java.util.concurrent.CompletionException(e);
                    }
                }),
                Thread::startVirtualThread);
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(
            HttpRequest request,
            HttpResponse.BodyHandler<T> handler,
            HttpResponse.PushPromiseHandler<T> pushPromiseHandler) {
        return sendAsync(request, handler);
    }

    /** Collects the body up to the cap; one byte more cancels the exchange. */
    private HttpResponse.BodySubscriber<byte[]> capped(HttpResponse.ResponseInfo info) {
        return new HttpResponse.BodySubscriber<>() {
            private final CompletableFuture<byte[]> body = new CompletableFuture<>();
            private final List<ByteBuffer> parts = new ArrayList<>();
            private Flow.Subscription subscription;
            private long size;

            @Override
            public CompletionStage<byte[]> getBody() {
                return body;
            }

            @Override
            public void onSubscribe(Flow.Subscription subscription) {
                this.subscription = subscription;
                subscription.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(List<ByteBuffer> items) {
                for (ByteBuffer item : items) {
                    size += item.remaining();
                    if (size > maxBodyBytes) {
                        subscription.cancel();
                        body.completeExceptionally(new TooLarge(maxBodyBytes));
                        return;
                    }
                    parts.add(item);
                }
            }

            @Override
            public void onError(Throwable throwable) {
                body.completeExceptionally(throwable);
            }

            @Override
            public void onComplete() {
                byte[] all = new byte[(int) size];
                int at = 0;
                for (ByteBuffer part : parts) {
                    int length = part.remaining();
                    part.get(all, at, length);
                    at += length;
                }
                body.complete(all);
            }
        };
    }

    /** The caller's handler applied to the bytes already read. */
    private static <T> HttpResponse<T> replay(HttpResponse<byte[]> answer, HttpResponse.BodyHandler<T> handler)
            throws IOException {
        HttpResponse.BodySubscriber<T> subscriber = handler.apply(new HttpResponse.ResponseInfo() {
            @Override
            public int statusCode() {
                return answer.statusCode();
            }

            @Override
            public HttpHeaders headers() {
                return answer.headers();
            }

            @Override
            public Version version() {
                return answer.version();
            }
        });
        subscriber.onSubscribe(new Flow.Subscription() {
            @Override
            public void request(long n) {}

            @Override
            public void cancel() {}
        });
        byte[] bytes = answer.body();
        if (bytes.length > 0) {
            subscriber.onNext(List.of(ByteBuffer.wrap(bytes)));
        }
        subscriber.onComplete();
        T body;
        try {
            body = subscriber.getBody().toCompletableFuture().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        }
        return new HttpResponse<>() {
            @Override
            public int statusCode() {
                return answer.statusCode();
            }

            @Override
            public HttpRequest request() {
                return answer.request();
            }

            @Override
            public Optional<HttpResponse<T>> previousResponse() {
                return Optional.empty();
            }

            @Override
            public HttpHeaders headers() {
                return answer.headers();
            }

            @Override
            public T body() {
                return body;
            }

            @Override
            public Optional<javax.net.ssl.SSLSession> sslSession() {
                return answer.sslSession();
            }

            @Override
            public java.net.URI uri() {
                return answer.uri();
            }

            @Override
            public Version version() {
                return answer.version();
            }
        };
    }

    /** An answer longer than the cap: cut off, the exchange cancelled. */
    public static final class TooLarge extends IOException {
        TooLarge(int cap) {
            super("the answer is longer than " + cap + " bytes", null);
        }
    }

    @Override
    public Optional<CookieHandler> cookieHandler() {
        return delegate.cookieHandler();
    }

    @Override
    public Optional<Duration> connectTimeout() {
        return delegate.connectTimeout();
    }

    @Override
    public Redirect followRedirects() {
        return delegate.followRedirects();
    }

    @Override
    public Optional<ProxySelector> proxy() {
        return delegate.proxy();
    }

    @Override
    public SSLContext sslContext() {
        return delegate.sslContext();
    }

    @Override
    public SSLParameters sslParameters() {
        return delegate.sslParameters();
    }

    @Override
    public Optional<Authenticator> authenticator() {
        return delegate.authenticator();
    }

    @Override
    public Version version() {
        return delegate.version();
    }

    @Override
    public Optional<Executor> executor() {
        return delegate.executor();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
