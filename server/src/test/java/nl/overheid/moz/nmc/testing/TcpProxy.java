package nl.overheid.moz.nmc.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP forwarder on a loopback port to a loopback target, which a test can {@link #cut} (every connection closed,
 * the port refusing) and {@link #restore} on the same port: a database outage without stopping the database.
 */
public final class TcpProxy implements AutoCloseable {

    private final int targetPort;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private volatile ServerSocket server;
    private int port;

    public TcpProxy(int targetPort) {
        this.targetPort = targetPort;
        listen(0);
    }

    public int port() {
        return port;
    }

    private void listen(int onPort) {
        try {
            ServerSocket socket = new ServerSocket();
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), onPort));
            server = socket;
            port = socket.getLocalPort();
            Thread.ofVirtual().start(() -> accept(socket));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void accept(ServerSocket socket) {
        while (!socket.isClosed()) {
            try {
                Socket client = socket.accept();
                Socket target = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                open.add(client);
                open.add(target);
                Thread.ofVirtual().start(() -> pipe(client, target));
                Thread.ofVirtual().start(() -> pipe(target, client));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void pipe(Socket from, Socket to) {
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            in.transferTo(out);
        } catch (IOException e) {
            // closed by cut() or by either side
        } finally {
            quietly(from);
            quietly(to);
        }
    }

    /** Closes every connection and stops accepting: the target is unreachable. */
    public void cut() {
        quietly(server);
        open.forEach(TcpProxy::quietly);
        open.clear();
    }

    /** Accepts again on the same port. */
    public void restore() {
        listen(port);
    }

    private static void quietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception e) {
            // nothing to do
        }
    }

    @Override
    public void close() {
        cut();
    }
}
