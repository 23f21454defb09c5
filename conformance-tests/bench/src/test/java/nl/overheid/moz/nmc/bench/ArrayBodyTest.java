package nl.overheid.moz.nmc.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The benchmarks' request body: the array's bytes in order, as views of it (never copied), as far as demanded. */
class ArrayBodyTest {

    /** Subscribes, asking for {@code perRequest} views at a time from inside onNext, and keeps what came. */
    private static class Collector implements Flow.Subscriber<ByteBuffer> {
        final List<ByteBuffer> views = new ArrayList<>();
        final AtomicInteger completions = new AtomicInteger();
        Throwable error;
        Flow.Subscription subscription;
        int cancelAfter = Integer.MAX_VALUE;

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            this.subscription = subscription;
            subscription.request(1);
        }

        @Override
        public void onNext(ByteBuffer item) {
            views.add(item);
            if (views.size() >= cancelAfter) {
                subscription.cancel();
            } else {
                subscription.request(1); // re-entrant: served by the publisher's loop, not by recursion
            }
        }

        @Override
        public void onError(Throwable throwable) {
            error = throwable;
        }

        @Override
        public void onComplete() {
            completions.incrementAndGet();
        }
    }

    private static byte[] random(int length) {
        byte[] bytes = new byte[length];
        new Random(length).nextBytes(bytes);
        return bytes;
    }

    @Test
    void publishesTheArrayInOrderAsViewsOfItWithoutCopyingAndCompletesOnce() {
        byte[] bytes = random(3 * ArrayBody.SLICE + 17);
        ArrayBody body = new ArrayBody(bytes);
        Collector collector = new Collector();

        body.subscribe(collector);

        assertThat(body.contentLength()).isEqualTo(bytes.length);
        assertThat(collector.views).hasSize(4);
        assertThat(collector.views).allSatisfy(view -> assertThat(view.array()).isSameAs(bytes));
        ByteArrayOutputStream joined = new ByteArrayOutputStream();
        collector.views.forEach(
                view -> joined.write(view.array(), view.arrayOffset() + view.position(), view.remaining()));
        assertThat(joined.toByteArray()).isEqualTo(bytes);
        assertThat(collector.completions).hasValue(1);
        assertThat(collector.error).isNull();
    }

    @Test
    void aCancelledSubscriptionGetsNothingMoreAndNoCompletion() {
        Collector collector = new Collector();
        collector.cancelAfter = 2;

        new ArrayBody(random(10 * ArrayBody.SLICE)).subscribe(collector);

        assertThat(collector.views).hasSize(2);
        assertThat(collector.completions).hasValue(0);
    }

    @Test
    void anEmptyBodyCompletesAtTheFirstDemandAndANonPositiveDemandIsAnError() {
        Collector empty = new Collector();
        new ArrayBody(new byte[0]).subscribe(empty);
        assertThat(empty.views).isEmpty();
        assertThat(empty.completions).hasValue(1);

        Collector wrong = new Collector() {
            @Override
            public void onSubscribe(Flow.Subscription subscription) {
                subscription.request(0);
            }
        };
        new ArrayBody(random(10)).subscribe(wrong);
        assertThat(wrong.error).isInstanceOf(IllegalArgumentException.class);
        assertThat(wrong.views).isEmpty();
    }

    /** Both clients the benchmarks use send it whole: the server sees the array's length and digest. */
    @Test
    void theLeanClientAndTheJdkClientSendItWhole() throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            byte[] received = exchange.getRequestBody().readAllBytes();
            byte[] answer = (received.length + " " + sha256(received)).getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        server.start();
        try {
            byte[] bytes = random(4 * 1024 * 1024 + 5);
            String expected = bytes.length + " " + sha256(bytes);
            Requests requests =
                    new Requests("http://127.0.0.1:" + server.getAddress().getPort());
            HttpRequest request = requests.post("/bulk", "t", bytes, false);
            URI uri = request.uri();
            assertThat(uri.getPath()).isEqualTo("/bulk");
            try (LeanHttp lean = new LeanHttp()) {
                assertThat(lean.send(request).body()).isEqualTo(expected);
                assertThat(lean.send(request).body())
                        .as("subscribed again, from the start")
                        .isEqualTo(expected);
            }
            try (HttpClient jdk = HttpClient.newHttpClient()) {
                assertThat(jdk.send(request, HttpResponse.BodyHandlers.ofString())
                                .body())
                        .isEqualTo(expected);
            }
        } finally {
            server.stop(0);
        }
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
