package nl.overheid.moz.nmc.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * HTTP/1.1 over a plain socket, byte for byte as a fuzzer writes it: a request line and headers that may hold
 * any byte but CR and LF (which would make other headers of them). {@link #send} sets the framing itself —
 * {@code Content-Length}, {@code Connection: close} — so every request is complete and the server must answer it;
 * {@link #sendAsFramed} keeps the caller's {@code Content-Length} and {@code Transfer-Encoding}, however wrong, ends
 * its side of the connection after the bytes and reads every answer until the server closes.
 */
public final class RawHttp {

    private static final List<String> FRAMING =
            List.of("content-length", "transfer-encoding", "connection", "expect", "upgrade", "te", "trailer");
    /** The framing a caller of {@link #sendAsFramed} chooses itself. */
    public static final List<String> BODY_FRAMING = List.of("content-length", "transfer-encoding");

    private final int port;

    public RawHttp(int port) {
        this.port = port;
    }

    /** An answer: its status ({@code -1} when the connection closed without one), headers and body. */
    public record Answer(int status, List<String> headerLines, byte[] body) {

        public Optional<String> header(String name) {
            String prefix = name.toLowerCase(Locale.ROOT) + ":";
            return headerLines.stream()
                    .filter(line -> line.toLowerCase(Locale.ROOT).startsWith(prefix))
                    .map(line -> line.substring(prefix.length()).trim())
                    .findFirst();
        }

        public String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /** What came back for bytes that may hold several requests: every answer, and whether all of it was read. */
    public record Exchange(List<Answer> answers, boolean complete) {}

    /**
     * Sends {@code requestLine}, the {@code headers} (each a line without its line break; framing headers among them
     * are dropped) and {@code body}, and reads the whole answer.
     */
    public Answer send(byte[] requestLine, List<byte[]> headers, byte[] body) {
        byte[] request = request(requestLine, headers, List.of(), body, true);
        boolean head = new String(requestLine, StandardCharsets.ISO_8859_1).startsWith("HEAD ");
        return exchange(request, false, in -> read(in, head));
    }

    /**
     * Sends {@code requestLine}, the {@code headers} with their own {@code Content-Length} and
     * {@code Transfer-Encoding} (the other framing headers are dropped) and {@code body} as they are: a body shorter
     * than its length, chunks that do not add up, or bytes after the body that the server reads as the next request.
     * The client's side then closes, so the server never waits for bytes that will not come; the answers are read
     * until the server closes too. An answer that cannot be framed (after a pipelined {@code HEAD}, say) ends the
     * reading with {@code complete} false.
     */
    public Exchange sendAsFramed(byte[] requestLine, List<byte[]> headers, byte[] body) {
        byte[] request = request(requestLine, headers, BODY_FRAMING, body, false);
        boolean head = new String(requestLine, StandardCharsets.ISO_8859_1).startsWith("HEAD ");
        return exchange(request, true, in -> {
            List<Answer> answers = new ArrayList<>();
            while (true) {
                Answer answer = read(in, head && answers.isEmpty());
                if (answer.status() == -1) {
                    return new Exchange(answers, answer.body().length == 0);
                }
                answers.add(answer);
            }
        });
    }

    private byte[] request(
            byte[] requestLine, List<byte[]> headers, List<String> kept, byte[] body, boolean contentLength) {
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        request.writeBytes(withoutLineBreaks(requestLine));
        request.writeBytes(CRLF);
        boolean host = false;
        for (byte[] header : headers) {
            byte[] line = withoutLineBreaks(header);
            String name = headerName(line);
            if (FRAMING.contains(name) && !kept.contains(name)) {
                continue;
            }
            host |= name.equals("host");
            request.writeBytes(line);
            request.writeBytes(CRLF);
        }
        if (!host) {
            request.writeBytes(ascii("Host: 127.0.0.1:" + port + "\r\n"));
        }
        if (contentLength) {
            request.writeBytes(ascii("Content-Length: " + body.length + "\r\n"));
        }
        request.writeBytes(ascii("Connection: close\r\n\r\n"));
        request.writeBytes(body);
        return request.toByteArray();
    }

    private interface Reading<T> {
        T from(InputStream in) throws IOException;
    }

    private <T> T exchange(byte[] request, boolean closeAfter, Reading<T> reading) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(20_000);
            socket.setTcpNoDelay(true);
            OutputStream out = socket.getOutputStream();
            try {
                out.write(request);
                out.flush();
                if (closeAfter) {
                    socket.shutdownOutput();
                }
            } catch (java.net.SocketException refused) {
                // the server may answer and close before it has read everything: what it answered counts
            }
            return reading.from(new java.io.BufferedInputStream(socket.getInputStream()));
        } catch (SocketTimeoutException e) {
            throw new AssertionError("no complete answer within 20 s", e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One answer, framed as HTTP/1.1 frames it (the server need not close the connection after it). */
    private static Answer read(InputStream in, boolean head) throws IOException {
        ByteArrayOutputStream headBytes = new ByteArrayOutputStream();
        int matched = 0;
        try {
            int b;
            while (matched < 4 && (b = in.read()) >= 0) {
                headBytes.write(b);
                matched = (b == '\r' && (matched == 0 || matched == 2)) || (b == '\n' && (matched == 1 || matched == 3))
                        ? matched + 1
                        : (b == '\r' ? 1 : 0);
            }
        } catch (java.net.SocketException reset) {
            // the server may close hard after refusing a request: keep what arrived
        }
        String text = headBytes.toString(StandardCharsets.ISO_8859_1);
        if (!text.startsWith("HTTP/1.1 ") || matched < 4) {
            return new Answer(-1, List.of(), headBytes.toByteArray());
        }
        String[] lines = text.substring(0, text.length() - 4).split("\r\n");
        int status = Integer.parseInt(lines[0].substring(9, 12));
        List<String> headers = new ArrayList<>(List.of(lines).subList(1, lines.length));
        Answer bare = new Answer(status, headers, new byte[0]);
        if (head || status == 204 || status == 304 || status < 200) {
            return bare;
        }
        if (bare.header("Transfer-Encoding")
                .map(v -> v.equalsIgnoreCase("chunked"))
                .orElse(false)) {
            return new Answer(status, headers, chunks(in));
        }
        Optional<String> length = bare.header("Content-Length");
        if (length.isPresent()) {
            return new Answer(status, headers, in.readNBytes(Integer.parseInt(length.get())));
        }
        return new Answer(status, headers, readAll(in));
    }

    private static byte[] chunks(InputStream in) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
            String size = line(in);
            int length = Integer.parseInt(size.split(";")[0].trim(), 16);
            if (length == 0) {
                while (!line(in).isEmpty()) {
                    // trailers
                }
                return body.toByteArray();
            }
            body.writeBytes(in.readNBytes(length));
            line(in);
        }
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0 && b != '\n') {
            if (b != '\r') {
                line.write(b);
            }
        }
        return line.toString(StandardCharsets.ISO_8859_1);
    }

    private static final byte[] CRLF = {'\r', '\n'};

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static byte[] withoutLineBreaks(byte[] bytes) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(bytes.length);
        for (byte b : bytes) {
            if (b != '\r' && b != '\n') {
                out.write(b);
            }
        }
        return out.toByteArray();
    }

    private static String headerName(byte[] line) {
        String text = new String(line, StandardCharsets.ISO_8859_1);
        int colon = text.indexOf(':');
        return (colon < 0 ? text : text.substring(0, colon)).trim().toLowerCase(Locale.ROOT);
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            in.transferTo(out);
        } catch (java.net.SocketException reset) {
            // the server may close hard after its answer (a refused request): keep what arrived
        }
        return out.toByteArray();
    }
}
