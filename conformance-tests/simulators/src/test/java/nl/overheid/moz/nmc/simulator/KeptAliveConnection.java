package nl.overheid.moz.nmc.simulator;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;

/**
 * One HTTP/1.1 connection on which requests follow each other, written by hand so a test knows they share
 * the connection (java.net.http's pool decides that for itself). Reads {@code Content-Length} and chunked
 * answers; enough for the simulators, not a general client.
 */
final class KeptAliveConnection implements AutoCloseable {

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    KeptAliveConnection(int port) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(5_000);
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    /** POSTs the body with these headers (plus Host and Content-Length) and answers the status. */
    int post(String path, Map<String, String> headers, String body) throws IOException {
        byte[] content = body.getBytes(StandardCharsets.UTF_8);
        StringBuilder head = new StringBuilder("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        headers.forEach(
                (name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
        head.append("Content-Length: ").append(content.length).append("\r\n\r\n");
        out.write(head.toString().getBytes(StandardCharsets.US_ASCII));
        out.write(content);
        out.flush();

        String statusLine = line();
        boolean chunked = false;
        int length = 0;
        for (String header = line(); !header.isEmpty(); header = line()) {
            String lower = header.toLowerCase(Locale.ROOT);
            if (lower.startsWith("content-length:")) {
                length = Integer.parseInt(lower.substring(15).strip());
            } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                chunked = true;
            }
        }
        if (chunked) {
            for (int size = Integer.parseInt(line().split(";")[0].strip(), 16);
                    size > 0;
                    size = Integer.parseInt(line().split(";")[0].strip(), 16)) {
                in.readNBytes(size);
                line();
            }
            line(); // the empty line after the last chunk (no trailers)
        } else {
            in.readNBytes(length);
        }
        return Integer.parseInt(statusLine.split(" ")[1]);
    }

    private String line() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (int next = in.read(); next != '\n'; next = in.read()) {
            if (next < 0) {
                throw new IOException("the server closed the connection");
            }
            if (next != '\r') {
                bytes.write(next);
            }
        }
        return bytes.toString(StandardCharsets.US_ASCII);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
