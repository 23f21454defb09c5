package nl.overheid.moz.nmc.bench;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Flow;

/**
 * A lean HTTP/1.1 load client, in the spirit of wrk: each request is written on a kept-alive blocking socket by the
 * thread that sends it, and the answer read on the same thread, with no selector or executor between them. The
 * JDK's {@code HttpClient} hands every exchange between the caller, its executor and its selector thread; on two
 * cores shared with the NMC and PostgreSQL that cost the harness about half a millisecond of CPU per request, all of
 * it inside the latency measured at one client — a cost of the load generator, not of the NMC, where pgbench's own
 * client is C. Written here because no library of the project's is a blocking HTTP/1.1 client without those hand-offs.
 *
 * <p>Enough of HTTP/1.1 for the NMC's answers: a status line, headers, a body by {@code Content-Length} or chunked,
 * {@code Connection: close}. Requests are the {@link HttpRequest}s the benchmarks build (method, path and query,
 * headers, a body of bytes). With {@code Expect: 100-continue} the head goes first and the body only after the server's
 * {@code 100 Continue}; a final answer instead of it is the answer, the body is never sent and the connection is
 * closed. A kept connection that fails before any byte of the answer came is taken for one the server closed while it
 * was idle, and the request is sent once more on a new one: a server that read a request and then closed without
 * answering would see it twice. A body the server stops reading (it answered early and closed, as the NMC does with a
 * refused bulk call) fails the write: the answer is then read if it came, else the send fails.
 *
 * <p>A client may have a send buffer of a fixed size ({@link #LeanHttp(int)}): the flood's does, so that a body the NMC
 * refuses unread is not first copied whole into this machine's kernel (Linux grows a loopback socket's buffer to
 * 4 MB), on the cores the NMC shares with the load generator.
 */
final class LeanHttp implements HttpLoad.Sender {

    private static final int TIMEOUT_MILLIS = 60_000;

    private final ConcurrentLinkedDeque<Connection> idle = new ConcurrentLinkedDeque<>();
    /** Each socket's send buffer in bytes; 0: the system's (grown as it sees fit). */
    private final int sendBufferBytes;

    LeanHttp() {
        this(0);
    }

    /** A client whose sockets have a send buffer of {@code sendBufferBytes} (0: the system's). */
    LeanHttp(int sendBufferBytes) {
        if (sendBufferBytes < 0) {
            throw new IllegalArgumentException("a send buffer of " + sendBufferBytes + " bytes");
        }
        this.sendBufferBytes = sendBufferBytes;
    }

    /** Each socket's send buffer in bytes; 0: the system's. */
    int sendBufferBytes() {
        return sendBufferBytes;
    }

    @Override
    public HttpLoad.Answer send(HttpRequest request) throws IOException {
        boolean expectContinue = request.expectContinue();
        byte[] head = head(request);
        HttpRequest.BodyPublisher body = request.bodyPublisher().orElse(null);
        Connection connection = idle.pollFirst();
        boolean reused = connection != null;
        if (connection == null) {
            connection = Connection.open(request.uri(), sendBufferBytes);
        }
        try {
            Response response;
            if (expectContinue) {
                try {
                    connection.write(head, null);
                } catch (IOException e) {
                    throw new Stale(e);
                }
                Response interim = connection.read();
                if (interim.status() != 100) {
                    // refused before the body: the server may still wait for it, so the connection goes
                    connection.close();
                    return new HttpLoad.Answer(interim.status(), interim.body());
                }
                connection.writeBody(body);
                response = connection.read();
            } else {
                try {
                    connection.write(head, body);
                } catch (IOException e) {
                    // an answer that came before the server stopped reading (and closed), or a stale connection
                    response = connection.readAfterFailedWrite(e);
                    connection.close();
                    return new HttpLoad.Answer(response.status(), response.body());
                }
                response = connection.read();
            }
            if (response.keepAlive()) {
                idle.addFirst(connection);
            } else {
                connection.close();
            }
            return new HttpLoad.Answer(response.status(), response.body());
        } catch (Stale e) {
            connection.close();
            if (reused) {
                // the server had closed the idle connection before this request reached it: once more, on a fresh one
                return send(request);
            }
            throw e;
        } catch (IOException e) {
            connection.close();
            throw e;
        }
    }

    private static byte[] head(HttpRequest request) {
        URI uri = request.uri();
        String target = uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
        StringBuilder head = new StringBuilder(256)
                .append(request.method())
                .append(' ')
                .append(target)
                .append(" HTTP/1.1\r\nHost: ")
                .append(uri.getHost())
                .append(':')
                .append(uri.getPort())
                .append("\r\n");
        for (Map.Entry<String, List<String>> header : request.headers().map().entrySet()) {
            for (String value : header.getValue()) {
                head.append(header.getKey()).append(": ").append(value).append("\r\n");
            }
        }
        long length = request.bodyPublisher()
                .map(HttpRequest.BodyPublisher::contentLength)
                .orElse(0L);
        if (length > 0 || !request.method().equals("GET")) {
            head.append("Content-Length: ").append(Math.max(0, length)).append("\r\n");
        }
        if (request.expectContinue()) {
            head.append("Expect: 100-continue\r\n");
        }
        return head.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    /** The small limit under which head and body leave in one write (one segment). */
    private static final int ONE_WRITE = 64 * 1024;

    /**
     * Writes the body's bytes to {@code out} as its publisher hands them over, on this thread: {@link ArrayBody} (the
     * benchmarks' bodies) in views of its array, so a 4 MB flood body the server stops reading is neither copied nor
     * written further (and with {@code Expect: 100-continue} a refused one is never even published).
     */
    private static void publish(HttpRequest.BodyPublisher publisher, OutputStream out) throws IOException {
        if (publisher == null || publisher.contentLength() == 0) {
            return;
        }
        if (publisher.contentLength() < 0) {
            throw new IllegalArgumentException("the lean client sends only bodies of a known length");
        }
        IOException[] failed = {null};
        long[] written = {0};
        publisher.subscribe(new Flow.Subscriber<ByteBuffer>() {
            private Flow.Subscription subscription;

            @Override
            public void onSubscribe(Flow.Subscription subscription) {
                this.subscription = subscription;
                subscription.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(ByteBuffer item) {
                if (failed[0] != null) {
                    return;
                }
                try {
                    int length = item.remaining();
                    if (item.hasArray()) {
                        out.write(item.array(), item.arrayOffset() + item.position(), length);
                    } else {
                        byte[] bytes = new byte[length];
                        item.get(bytes);
                        out.write(bytes);
                    }
                    written[0] += length;
                } catch (IOException e) {
                    failed[0] = e;
                    subscription.cancel();
                }
            }

            @Override
            public void onError(Throwable throwable) {
                throw new IllegalStateException(throwable);
            }

            @Override
            public void onComplete() {
                // all bytes are out
            }
        });
        if (failed[0] != null) {
            throw failed[0];
        }
        if (written[0] != publisher.contentLength()) {
            throw new IllegalStateException(
                    "the body publisher gave " + written[0] + " of " + publisher.contentLength() + " bytes");
        }
    }

    private record Response(int status, String body, boolean keepAlive) {}

    /** The connection was closed before any byte of the answer came: the request did not reach the server. */
    private static final class Stale extends IOException {
        Stale(Throwable cause) {
            super(cause);
        }

        Stale() {
            super("the connection was closed before the answer began");
        }
    }

    private static final class Connection {
        private final Socket socket;
        private final InputStream in;
        private final OutputStream out;

        private Connection(Socket socket) throws IOException {
            this.socket = socket;
            this.in = new java.io.BufferedInputStream(socket.getInputStream(), 16 * 1024);
            this.out = socket.getOutputStream();
        }

        static Connection open(URI uri, int sendBufferBytes) throws IOException {
            Socket socket = new Socket();
            socket.setTcpNoDelay(true);
            if (sendBufferBytes > 0) {
                // a size set by the socket turns the kernel's auto-tuning of its send buffer off
                socket.setSendBufferSize(sendBufferBytes);
            }
            socket.setSoTimeout(TIMEOUT_MILLIS);
            socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), TIMEOUT_MILLIS);
            return new Connection(socket);
        }

        /** Writes the head and, unless {@code body} is null, the body; a small request in one write. */
        void write(byte[] head, HttpRequest.BodyPublisher body) throws IOException {
            long length = body == null ? 0 : Math.max(0, body.contentLength());
            if (head.length + length <= ONE_WRITE) {
                java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream(head.length + (int) length);
                all.writeBytes(head);
                publish(body, all);
                out.write(all.toByteArray());
            } else {
                out.write(head);
                publish(body, out);
            }
            out.flush();
        }

        void writeBody(HttpRequest.BodyPublisher body) throws IOException {
            publish(body, out);
            out.flush();
        }

        /**
         * The answer after a write failed: one the server sent before it closed, else {@link Stale} (nothing of an
         * answer came: the request may not have reached the server).
         */
        Response readAfterFailedWrite(IOException writeFailure) throws IOException {
            try {
                return read();
            } catch (Stale nothing) {
                throw new Stale(writeFailure);
            }
        }

        Response read() throws IOException {
            in.mark(1);
            int first;
            try {
                first = in.read();
            } catch (IOException e) {
                throw new Stale(e); // reset before any byte of the answer: the server had closed the connection
            }
            if (first < 0) {
                throw new Stale();
            }
            in.reset();
            String statusLine = line();
            // "HTTP/1.1 202 Accepted"
            if (!statusLine.startsWith("HTTP/1.") || statusLine.length() < 12) {
                throw new IOException("not an HTTP/1.1 status line: " + statusLine);
            }
            int status = Integer.parseInt(statusLine.substring(9, 12));
            long length = -1;
            boolean chunked = false;
            boolean keepAlive = statusLine.startsWith("HTTP/1.1");
            for (String header = line(); !header.isEmpty(); header = line()) {
                int colon = header.indexOf(':');
                if (colon < 0) {
                    continue;
                }
                String name = header.substring(0, colon).trim().toLowerCase(Locale.ROOT);
                String value = header.substring(colon + 1).trim();
                switch (name) {
                    case "content-length" -> length = Long.parseLong(value);
                    case "transfer-encoding" ->
                        chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
                    case "connection" -> keepAlive = !value.equalsIgnoreCase("close");
                    default -> {
                        // not needed
                    }
                }
            }
            byte[] body;
            if (status < 200 || status == 204 || status == 304) {
                body = new byte[0];
            } else if (chunked) {
                body = chunks();
            } else if (length >= 0) {
                body = in.readNBytes(Math.toIntExact(length));
                if (body.length < length) {
                    throw new EOFException("the body ended early");
                }
            } else {
                body = in.readAllBytes();
                keepAlive = false;
            }
            return new Response(status, new String(body, StandardCharsets.UTF_8), keepAlive);
        }

        private byte[] chunks() throws IOException {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            while (true) {
                String size = line();
                int extension = size.indexOf(';');
                int length = Integer.parseInt((extension < 0 ? size : size.substring(0, extension)).trim(), 16);
                if (length == 0) {
                    for (String trailer = line(); !trailer.isEmpty(); trailer = line()) {
                        // trailers are not needed
                    }
                    return body.toByteArray();
                }
                byte[] chunk = in.readNBytes(length);
                if (chunk.length < length) {
                    throw new EOFException("a chunk ended early");
                }
                body.writeBytes(chunk);
                line(); // the CRLF after the chunk
            }
        }

        private String line() throws IOException {
            StringBuilder line = new StringBuilder(64);
            while (true) {
                int b = in.read();
                if (b < 0) {
                    throw new EOFException("the connection closed mid-answer");
                }
                if (b == '\n') {
                    int end = line.length();
                    if (end > 0 && line.charAt(end - 1) == '\r') {
                        line.setLength(end - 1);
                    }
                    return line.toString();
                }
                line.append((char) b);
            }
        }

        void close() {
            try {
                socket.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
    }

    @Override
    public void close() {
        for (Connection connection = idle.pollFirst(); connection != null; connection = idle.pollFirst()) {
            connection.close();
        }
    }
}
