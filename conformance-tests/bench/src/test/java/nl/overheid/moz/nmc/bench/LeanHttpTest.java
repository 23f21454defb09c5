package nl.overheid.moz.nmc.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The load generator's own HTTP/1.1 client against a scripted server on the loopback: what it writes, the answers it
 * reads (by length, chunked, until close), when it keeps a connection and when it opens a new one.
 */
class LeanHttpTest {

    /** A request as the server read it, and the connection (numbered from 1) it came on. */
    private record Seen(int connection, String head, String body) {}

    /** What the server answers to a request, and whether it then closes the connection. */
    private record Answer(String bytes, boolean closeAfter) {}

    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private ServerSocket server;

    @AfterEach
    void stop() throws IOException {
        if (server != null) {
            server.close();
        }
    }

    /** Serves every connection on a thread of its own, each request answered by {@code script}. */
    private URI serve(Function<Seen, Answer> script) throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        AtomicInteger connections = new AtomicInteger();
        Thread.ofPlatform().daemon().start(() -> {
            while (!server.isClosed()) {
                try {
                    Socket socket = server.accept();
                    int number = connections.incrementAndGet();
                    Thread.ofPlatform().daemon().start(() -> connection(socket, number, script));
                } catch (IOException closed) {
                    return;
                }
            }
        });
        return URI.create("http://127.0.0.1:" + server.getLocalPort() + "/api/x?y=1");
    }

    private void connection(Socket socket, int number, Function<Seen, Answer> script) {
        try (socket) {
            InputStream in = new BufferedInputStream(socket.getInputStream());
            OutputStream out = socket.getOutputStream();
            while (true) {
                StringBuilder head = new StringBuilder();
                int length = 0;
                for (String line = line(in); !line.isEmpty(); line = line(in)) {
                    head.append(line).append('\n');
                    if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                        length = Integer.parseInt(line.substring(15).trim());
                    }
                }
                if (head.toString().toLowerCase(Locale.ROOT).contains("expect: 100-continue")) {
                    Answer early = script.apply(new Seen(number, head.toString(), null));
                    if (early != null) {
                        // a final answer instead of 100 Continue: the body is never read
                        seen.add(new Seen(number, head.toString(), null));
                        out.write(early.bytes().getBytes(StandardCharsets.UTF_8));
                        out.flush();
                        return;
                    }
                    out.write("HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.UTF_8));
                    out.flush();
                }
                Seen request =
                        new Seen(number, head.toString(), new String(in.readNBytes(length), StandardCharsets.UTF_8));
                seen.add(request);
                Answer answer = script.apply(request);
                out.write(answer.bytes().getBytes(StandardCharsets.UTF_8));
                out.flush();
                if (answer.closeAfter()) {
                    return;
                }
            }
        } catch (IOException | RuntimeException ended) {
            // the client went away
        }
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) {
                throw new IOException("closed");
            }
            if (b != '\r') {
                line.append((char) b);
            }
        }
        return line.toString();
    }

    private static HttpRequest post(URI uri, String body) {
        return HttpRequest.newBuilder(uri)
                .header("Authorization", "Bearer t")
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
    }

    @Test
    void writesTheRequestAndReadsAnAnswerByItsLengthOnOneKeptConnection() throws Exception {
        URI uri = serve(request -> new Answer(
                "HTTP/1.1 202 Accepted\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"id\":\"é\"}",
                false));
        try (LeanHttp client = new LeanHttp()) {
            HttpLoad.Answer first = client.send(post(uri, "{\"dvRef\":\"a\"}"));
            HttpLoad.Answer second = client.send(post(uri, "{\"dvRef\":\"bb\"}"));

            assertThat(first.statusCode()).isEqualTo(202);
            assertThat(first.body()).isEqualTo("{\"id\":\"é\"}");
            assertThat(second.statusCode()).isEqualTo(202);
        }
        assertThat(seen).hasSize(2);
        assertThat(seen.get(0).head())
                .startsWith("POST /api/x?y=1 HTTP/1.1\n")
                .contains("Host: 127.0.0.1:")
                .contains("Authorization: Bearer t\n")
                .contains("Content-Type: application/json\n")
                .contains("Content-Length: 13\n");
        assertThat(seen.get(0).body()).isEqualTo("{\"dvRef\":\"a\"}");
        assertThat(seen.get(1).body()).isEqualTo("{\"dvRef\":\"bb\"}");
        assertThat(seen).extracting(Seen::connection).as("one connection, kept").containsExactly(1, 1);
    }

    @Test
    void readsAChunkedAnswerAndAnAnswerWithoutBody() throws Exception {
        URI uri = serve(request -> request.body().contains("leeg")
                ? new Answer("HTTP/1.1 204 No Content\r\n\r\n", false)
                : new Answer(
                        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n6\r\n world\r\n0\r\n\r\n",
                        false));
        try (LeanHttp client = new LeanHttp()) {
            HttpLoad.Answer chunked = client.send(post(uri, "{}"));
            HttpLoad.Answer empty = client.send(post(uri, "leeg"));
            HttpLoad.Answer again = client.send(post(uri, "{}"));

            assertThat(chunked.statusCode()).isEqualTo(200);
            assertThat(chunked.body()).isEqualTo("hello world");
            assertThat(empty.statusCode()).isEqualTo(204);
            assertThat(empty.body()).isEmpty();
            assertThat(again.body()).as("the connection still in step").isEqualTo("hello world");
        }
        assertThat(seen).extracting(Seen::connection).containsExactly(1, 1, 1);
    }

    @Test
    void anAnswerWithConnectionCloseIsReadAndTheNextRequestGoesOnANewConnection() throws Exception {
        URI uri = serve(request ->
                new Answer("HTTP/1.1 429 Too Many Requests\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}", true));
        try (LeanHttp client = new LeanHttp()) {
            assertThat(client.send(post(uri, "1")).statusCode()).isEqualTo(429);
            assertThat(client.send(post(uri, "2")).statusCode()).isEqualTo(429);
        }
        assertThat(seen).extracting(Seen::connection).containsExactly(1, 2);
    }

    /**
     * A kept connection the server closed while it was idle: the request never reached the server, so it is sent
     * once more on a new connection, and the server sees it once.
     */
    @Test
    void aKeptConnectionTheServerClosedMeanwhileIsReplacedAndTheRequestSentOnce() throws Exception {
        // closes after each answer without saying so: the client keeps the connection, which is closed when it next
        // uses it
        URI uri = serve(request -> new Answer("HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n", true));
        try (LeanHttp client = new LeanHttp()) {
            assertThat(client.send(post(uri, "eerste")).statusCode()).isEqualTo(202);
            Thread.sleep(200); // the server's close has arrived
            assertThat(client.send(post(uri, "tweede")).statusCode()).isEqualTo(202);
        }
        assertThat(seen).extracting(Seen::body).containsExactly("eerste", "tweede");
        assertThat(seen).extracting(Seen::connection).containsExactly(1, 2);
    }

    private static HttpRequest expecting(URI uri, String body) {
        return HttpRequest.newBuilder(uri)
                .expectContinue(true)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
    }

    @Test
    void withExpectContinueTheBodyFollowsTheServersContinueAndTheConnectionIsKept() throws Exception {
        // a request whose head is seen without a body (null) is let through: the script answers only full requests
        URI uri = serve(request ->
                request.body() == null ? null : new Answer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", false));
        try (LeanHttp client = new LeanHttp()) {
            HttpLoad.Answer first = client.send(expecting(uri, "{\"n\":1}"));
            HttpLoad.Answer second = client.send(expecting(uri, "{\"n\":2}"));

            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(first.body()).isEqualTo("ok");
            assertThat(second.statusCode()).isEqualTo(200);
        }
        assertThat(seen.get(0).head()).contains("Expect: 100-continue\n").contains("Content-Length: 7\n");
        assertThat(seen).extracting(Seen::body).containsExactly("{\"n\":1}", "{\"n\":2}");
        assertThat(seen).extracting(Seen::connection).containsExactly(1, 1);
    }

    @Test
    void withExpectContinueAFinalAnswerInsteadOfContinueIsTheAnswerAndTheBodyIsNeverSent() throws Exception {
        URI uri = serve(request ->
                new Answer("HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1\r\nContent-Length: 2\r\n\r\n{}", true));
        try (LeanHttp client = new LeanHttp()) {
            HttpLoad.Answer first = client.send(expecting(uri, "x".repeat(100_000)));
            HttpLoad.Answer second = client.send(expecting(uri, "y"));

            assertThat(first.statusCode()).isEqualTo(429);
            assertThat(first.body()).isEqualTo("{}");
            assertThat(second.statusCode()).isEqualTo(429);
        }
        assertThat(seen).extracting(Seen::body).as("no body read").containsExactly(null, null);
        assertThat(seen)
                .extracting(Seen::connection)
                .as("each on a new connection")
                .containsExactly(1, 2);
    }

    /**
     * The NMC's refusal of a bulk call whose body is still coming: answered, then the connection closed unread. The
     * client's write of the rest fails; the answer that came before is read, and the request is not sent again.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(ints = {0, FloodBench.FLOOD_SEND_BUFFER})
    void aBodyTheServerStopsReadingFailsTheWriteAndIsNotSentAgain(int sendBuffer) throws Exception {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        AtomicInteger requests = new AtomicInteger();
        Thread.ofPlatform().daemon().start(() -> {
            while (!server.isClosed()) {
                try (Socket socket = server.accept()) {
                    InputStream in = new BufferedInputStream(socket.getInputStream());
                    while (!line(in).isEmpty()) {
                        // the head only
                    }
                    requests.incrementAndGet();
                    socket.getOutputStream()
                            .write("HTTP/1.1 429 Too Many Requests\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
                                    .getBytes(StandardCharsets.ISO_8859_1));
                    Thread.sleep(100);
                } catch (IOException | InterruptedException closed) {
                    // closed with the body unread
                }
            }
        });
        URI uri = URI.create("http://127.0.0.1:" + server.getLocalPort() + "/bulk");
        try (LeanHttp client = new LeanHttp(sendBuffer)) {
            // Linux keeps the answer readable after the reset that the unread body causes
            HttpLoad.Answer answer = client.send(post(uri, "z".repeat(32 * 1024 * 1024)));
            assertThat(answer.statusCode()).isEqualTo(429);
        }
        Thread.sleep(200);
        assertThat(requests).as("sent once").hasValue(1);
    }

    @Test
    void anAnswerThatEndsEarlyIsAnErrorNotAnAnswer() throws Exception {
        URI uri = serve(request -> new Answer("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nkort", true));
        try (LeanHttp client = new LeanHttp()) {
            assertThatThrownBy(() -> client.send(post(uri, "x"))).isInstanceOf(IOException.class);
        }
        assertThat(seen).as("sent once: an answer had begun").hasSize(1);
    }
}
