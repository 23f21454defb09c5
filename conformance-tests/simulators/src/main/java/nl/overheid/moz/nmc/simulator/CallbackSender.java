package nl.overheid.moz.nmc.simulator;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Notify's delivery-status callbacks ({@code send_delivery_status_to_service}), and its complaint callbacks
 * ({@code send_complaint_to_service}): a JSON POST with
 * {@code Authorization: Bearer <the callback token of the service that sent it>}, retried on a connection error or time-out,
 * on a 5xx and on a 429, at most {@value #MAX_RETRIES} times (Celery {@code max_retries=5}); any other
 * non-2xx answer is dropped without retry. Notify waits 300 s between attempts; here the interval is
 * configurable (default 1 s).
 *
 * <p>Thread-safe. Attempts run asynchronously on the HTTP client; a single scheduler thread only times them.
 * {@link #reset()} drops every callback scheduled before it (they are never sent).
 */
final class CallbackSender implements AutoCloseable {

    /** Notify retries a failed callback five times: six attempts in all. */
    static final int MAX_RETRIES = 5;

    /** Notify's {@code requests} time-out for a callback. */
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);

    private final URI url;
    private final java.util.function.Function<UUID, String> bearerTokenOf;
    private final Duration retryInterval;
    private final Clock clock;
    private final Consumer<String> log;
    private final ScheduledExecutorService scheduler;
    private final HttpClient client;
    private final AtomicInteger delivered = new AtomicInteger();
    private final AtomicInteger attempts = new AtomicInteger();
    private final AtomicLong generation = new AtomicLong();
    /** Callbacks scheduled and not yet answered with a 2xx, dropped or given up, of this generation. */
    private final AtomicInteger pending = new AtomicInteger();

    /**
     * @param url         the callback URL, or null to send no callbacks at all
     * @param bearerTokenOf the token configured at Notify for that URL, per service id
     */
    CallbackSender(
            URI url,
            java.util.function.Function<UUID, String> bearerTokenOf,
            Duration retryInterval,
            Clock clock,
            Consumer<String> log) {
        this.url = url;
        this.bearerTokenOf = bearerTokenOf;
        this.retryInterval = retryInterval;
        this.clock = clock;
        this.log = log;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "notifynl-sim-callbacks");
            thread.setDaemon(true);
            return thread;
        });
        this.client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(REQUEST_TIMEOUT)
                .build();
    }

    /**
     * Sends the notification's delivery receipt after {@code delay}, but never before its final status is
     * reached (so a status query made on receipt of the callback agrees with it).
     */
    void schedule(StoredNotification notification, Duration delay) {
        if (url == null) {
            return;
        }
        Delivery delivery =
                new Delivery(notification, NotifyJson.deliveryReceipt(notification), generation.get(), "receipt");
        pending.incrementAndGet();
        later(() -> attempt(delivery, 1), delay);
    }

    /**
     * Sends a complaint callback about the notification after {@code delay} (after its outcome, like a receipt), with
     * the same token and retries: the simulator's services have their complaint callback at the same URL.
     */
    void scheduleComplaint(StoredNotification notification, UUID complaintId, Instant complainedAt, Duration delay) {
        if (url == null) {
            return;
        }
        Delivery delivery = new Delivery(
                notification,
                NotifyJson.complaint(notification, complaintId, complainedAt),
                generation.get(),
                "complaint");
        pending.incrementAndGet();
        later(() -> attempt(delivery, 1), delay);
    }

    /** Callbacks answered with a 2xx. */
    int delivered() {
        return delivered.get();
    }

    /** Callback POSTs made, successful or not. */
    int attempts() {
        return attempts.get();
    }

    /** Callbacks still to be sent or retried. */
    int pending() {
        return pending.get();
    }

    /** Forgets every pending callback and zeroes the counters. */
    void reset() {
        generation.incrementAndGet();
        pending.set(0);
        delivered.set(0);
        attempts.set(0);
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
        client.shutdownNow();
    }

    private void attempt(Delivery delivery, int attempt) {
        if (delivery.generation() != generation.get()) {
            return;
        }
        Instant now = clock.instant();
        if (attempt == 1 && !delivery.notification().isCompletedAt(now)) {
            later(
                    () -> attempt(delivery, 1),
                    Duration.between(now, delivery.notification().completedAt()));
            return;
        }
        attempts.incrementAndGet();
        HttpRequest request = HttpRequest.newBuilder(url)
                .timeout(REQUEST_TIMEOUT)
                .header("Content-Type", "application/json")
                .header(
                        "Authorization",
                        "Bearer " + bearerTokenOf.apply(delivery.notification().serviceId()))
                .POST(HttpRequest.BodyPublishers.ofString(delivery.body()))
                .build();
        client.sendAsync(request, HttpResponse.BodyHandlers.discarding())
                .whenComplete((response, failure) -> onAnswer(delivery, attempt, response, failure));
    }

    private void onAnswer(Delivery delivery, int attempt, HttpResponse<Void> response, Throwable failure) {
        if (delivery.generation() != generation.get() || scheduler.isShutdown()) {
            return; // reset or closed meanwhile: the answer no longer counts
        }
        String what = "callback " + delivery.describe() + " attempt=" + attempt;
        if (failure == null && response.statusCode() / 100 == 2) {
            delivered.incrementAndGet();
            pending.decrementAndGet();
            log.accept(what + " -> " + response.statusCode());
            return;
        }
        String answer = failure == null ? String.valueOf(response.statusCode()) : causeName(failure);
        boolean retryable = failure != null || response.statusCode() >= 500 || response.statusCode() == 429;
        if (!retryable) {
            pending.decrementAndGet();
            log.accept(what + " -> " + answer + ", not retried (Notify retries only connection errors, 5xx and 429)");
        } else if (attempt > MAX_RETRIES) {
            pending.decrementAndGet();
            log.accept(what + " -> " + answer + ", given up after " + MAX_RETRIES + " retries");
        } else {
            log.accept(what + " -> " + answer + ", retry in " + retryInterval.toMillis() + " ms");
            later(() -> attempt(delivery, attempt + 1), retryInterval);
        }
    }

    private void later(Runnable task, Duration delay) {
        try {
            scheduler.schedule(task, Math.max(0, delay.toNanos()), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closed) {
            // the simulator is closing: pending callbacks are dropped
        }
    }

    private static String causeName(Throwable failure) {
        Throwable cause =
                failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        return cause.getMessage() == null
                ? cause.getClass().getSimpleName()
                : cause.getClass().getSimpleName() + " (" + cause.getMessage() + ")";
    }

    /** @param kind {@code receipt} or {@code complaint} */
    private record Delivery(StoredNotification notification, String body, long generation, String kind) {
        String describe() {
            return kind + " id=" + notification.id() + " reference=" + notification.reference() + " status="
                    + notification.finalStatus();
        }
    }
}
