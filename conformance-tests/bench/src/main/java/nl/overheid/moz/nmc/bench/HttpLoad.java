package nl.overheid.moz.nmc.bench;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongFunction;

/**
 * HTTP load on the NMC: closed loop (N clients, each sends its next request when the last one answered) or
 * open loop (requests at a fixed rate, latency measured from the moment each was due, so a slow server
 * cannot hide its queue: no coordinated omission). The requests go out through the JDK's {@link HttpClient}
 * (HTTP/1.1, kept-alive connections) or, where the figure is the latency of small requests, through
 * {@link LeanHttp} ({@link #lean()}), which costs the shared cores less per request.
 */
public final class HttpLoad implements AutoCloseable {

    /**
     * What a run produced.
     *
     * @param ok        answers the caller counted as success, e.g. 202s (or, for bulk, accepted items)
     * @param requests  requests answered or failed
     * @param statuses  HTTP status (or -1 for an I/O error) and how often
     * @param latencies of the successful requests
     * @param seconds   how long the run measured
     */
    public record Outcome(long ok, long requests, Map<Integer, Long> statuses, Latencies latencies, double seconds) {

        public double okPerSecond() {
            return ok / seconds;
        }

        /** This outcome and {@code other} together, as one run of both's length. */
        public Outcome plus(Outcome other) {
            Latencies both = new Latencies();
            both.add(latencies);
            both.add(other.latencies);
            Map<Integer, Long> counted = new TreeMap<>(statuses);
            other.statuses.forEach((status, count) -> counted.merge(status, count, Long::sum));
            return new Outcome(ok + other.ok, requests + other.requests, counted, both, seconds + other.seconds);
        }

        public long failed() {
            return statuses.entrySet().stream()
                    .filter(entry -> entry.getKey() < 200 || entry.getKey() >= 300)
                    .mapToLong(Map.Entry::getValue)
                    .sum();
        }
    }

    /** An answer's status and body. */
    public record Answer(int statusCode, String body) {}

    /** Counts what a response is worth: 0 for a failure, 1 for one notification, n for a bulk answer. */
    @FunctionalInterface
    public interface Worth {
        long of(Answer response);

        /** One for each answer with this status. */
        static Worth status(int status) {
            return response -> response.statusCode() == status ? 1 : 0;
        }
    }

    /** Sends one request and waits for its answer. */
    interface Sender extends AutoCloseable {
        Answer send(HttpRequest request) throws IOException, InterruptedException;

        @Override
        void close();
    }

    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();

    private final Sender sender;

    /** Load through the JDK's {@link HttpClient}. */
    public HttpLoad() {
        this.sender = new Sender() {
            @Override
            public Answer send(HttpRequest request) throws IOException, InterruptedException {
                HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
                return new Answer(response.statusCode(), response.body());
            }

            @Override
            public void close() {
                // the client is closed with the load
            }
        };
    }

    private HttpLoad(Sender sender) {
        this.sender = sender;
    }

    /** Load through {@link LeanHttp}: closed and open loops only ({@link #send} still uses the JDK's client). */
    public static HttpLoad lean() {
        return lean(0);
    }

    /** {@link #lean()} with each socket's send buffer fixed at {@code sendBufferBytes}. */
    public static HttpLoad lean(int sendBufferBytes) {
        return new HttpLoad(new LeanHttp(sendBufferBytes));
    }

    /**
     * {@link #lean()}, or the JDK's client when the system property {@code property} is {@code jdk} (in
     * {@code BENCH_OPTS}, to compare the two).
     */
    public static HttpLoad chosenBy(String property) {
        return chosenBy(property, 0);
    }

    /**
     * {@link #chosenBy(String)}, the lean client's sockets with a send buffer of {@code sendBufferBytes} (0: the
     * system's).
     */
    public static HttpLoad chosenBy(String property, int sendBufferBytes) {
        return System.getProperty(property, "lean").equals("jdk") ? new HttpLoad() : lean(sendBufferBytes);
    }

    /** Which client sends the loops' requests, for the results. */
    public String clientName() {
        if (sender instanceof LeanHttp lean) {
            return "lean (blocking socket per request, LeanHttp"
                    + (lean.sendBufferBytes() > 0 ? ", send buffer " + lean.sendBufferBytes() / 1024 + " KB" : "")
                    + ")";
        }
        return "JDK HttpClient";
    }

    public HttpClient client() {
        return client;
    }

    /**
     * {@code clients} loops for {@code duration}; request {@code i} is {@code requests.apply(i)}. Only requests
     * that complete within the duration count.
     */
    public Outcome closedLoop(int clients, Duration duration, LongFunction<HttpRequest> requests, Worth worth) {
        return closedLoop(clients, duration, Long.MAX_VALUE, requests, worth);
    }

    /** Like {@link #closedLoop(int, Duration, LongFunction, Worth)}, stopping after {@code limit} requests. */
    public Outcome closedLoop(
            int clients, Duration duration, long limit, LongFunction<HttpRequest> requests, Worth worth) {
        AtomicLong next = new AtomicLong();
        LongAdder ok = new LongAdder();
        LongAdder done = new LongAdder();
        Map<Integer, LongAdder> statuses = new ConcurrentHashMap<>();
        List<Latencies> perClient = new ArrayList<>();
        long start = System.nanoTime();
        long end = start + duration.toNanos();
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            Latencies latencies = new Latencies();
            perClient.add(latencies);
            threads.add(Thread.ofPlatform().name("bench-client-" + c).start(() -> {
                while (System.nanoTime() < end) {
                    long i = next.getAndIncrement();
                    if (i >= limit) {
                        return;
                    }
                    HttpRequest request = requests.apply(i);
                    long sent = System.nanoTime();
                    int status;
                    long worthIt = 0;
                    try {
                        Answer response = sender.send(request);
                        status = response.statusCode();
                        worthIt = worth.of(response);
                    } catch (IOException e) {
                        status = -1;
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                    long answered = System.nanoTime();
                    if (answered > end) {
                        return;
                    }
                    statuses.computeIfAbsent(status, s -> new LongAdder()).increment();
                    done.increment();
                    if (worthIt > 0) {
                        ok.add(worthIt);
                        latencies.recordNanos(answered - sent);
                    }
                }
            }));
        }
        join(threads);
        double seconds = Math.min(System.nanoTime(), end) - start;
        return outcome(ok, done, statuses, perClient, seconds / 1e9);
    }

    /**
     * Requests at {@code ratePerSecond} for {@code duration}, each on its own virtual thread; latency from the
     * moment the request was due.
     */
    public Outcome openLoop(double ratePerSecond, Duration duration, LongFunction<HttpRequest> requests, Worth worth) {
        LongAdder ok = new LongAdder();
        LongAdder done = new LongAdder();
        Map<Integer, LongAdder> statuses = new ConcurrentHashMap<>();
        Latencies latencies = new Latencies();
        long start = System.nanoTime();
        long total = (long) (ratePerSecond * duration.toNanos() / 1e9);
        double interval = 1e9 / ratePerSecond;
        try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
            for (long i = 0; i < total; i++) {
                long due = start + (long) (i * interval);
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    sleepNanos(wait);
                }
                long index = i;
                executor.submit(() -> {
                    try {
                        Answer response = sender.send(requests.apply(index));
                        long worthIt = worth.of(response);
                        statuses.computeIfAbsent(response.statusCode(), s -> new LongAdder())
                                .increment();
                        if (worthIt > 0) {
                            ok.add(worthIt);
                            latencies.recordNanos(System.nanoTime() - due);
                        }
                    } catch (IOException e) {
                        statuses.computeIfAbsent(-1, s -> new LongAdder()).increment();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    done.increment();
                });
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        return outcome(ok, done, statuses, List.of(latencies), seconds);
    }

    /** Sends one request and returns the answer (for probes and sequential reads). */
    public HttpResponse<String> send(HttpRequest request) {
        try {
            return client.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException("request to the NMC failed: " + request.uri(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static Outcome outcome(
            LongAdder ok, LongAdder done, Map<Integer, LongAdder> statuses, List<Latencies> parts, double seconds) {
        Latencies all = new Latencies();
        parts.forEach(all::add);
        Map<Integer, Long> counted = new TreeMap<>();
        statuses.forEach((status, count) -> counted.put(status, count.sum()));
        return new Outcome(ok.sum(), done.sum(), counted, all, seconds);
    }

    private static void join(List<Thread> threads) {
        for (Thread thread : threads) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static void sleepNanos(long nanos) {
        try {
            Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        sender.close();
        client.close();
    }
}
