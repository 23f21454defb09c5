package nl.overheid.moz.nmc.conformance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import nl.overheid.moz.nmc.Nmc;
import nl.overheid.moz.nmc.simulator.NotifyNlSimulator;
import nl.overheid.moz.nmc.testing.TestDatabase;
import nl.overheid.moz.nmc.testing.TestIam;
import nl.overheid.moz.nmc.testing.TestNmc;

/**
 * The running system the conformance tests talk to over HTTP only: the NMC with its background workers on
 * the real clock, PostgreSQL, and the NotifyNL simulator calling back into the NMC. One per test JVM.
 */
final class ConformanceEnvironment {

    private static ConformanceEnvironment instance;

    final TestIam iam = new TestIam();
    final NotifyNlSimulator notifyNl;
    final Nmc nmc;
    final String baseUrl;

    private ConformanceEnvironment() {
        TestDatabase database = TestDatabase.get();
        database.reset();
        int port = freePort();
        notifyNl = NotifyNlSimulator.start(NotifyNlSimulator.Config.builder()
                .port(0)
                .callbackUrl(URI.create("http://127.0.0.1:" + port + "/api/nmc/v1/notifynl-callback"))
                .callbackBearerToken(TestNmc.CALLBACK_TOKEN)
                .apiKey(TestNmc.NOTIFY_API_KEY)
                .callbackDelay(Duration.ofMillis(200))
                .build());
        nmc = Nmc.start(TestNmc.config(database, iam, notifyNl.baseUrl(), true, """
                server:
                  port: %d
                lifecycle:
                  mebv-period: PT2S
                  callback-window: PT1S
                  reconcile-steps: [PT1S, PT2S]
                  reconcile-interval: PT2S
                  notify-retention: PT30S
                engine:
                  poll-interval: PT0.1S
                """.formatted(port)), Nmc.systemClock());
        baseUrl = "http://127.0.0.1:" + nmc.port();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            nmc.close();
            notifyNl.close();
        }));
    }

    static synchronized ConformanceEnvironment get() {
        if (instance == null) {
            instance = new ConformanceEnvironment();
        }
        return instance;
    }

    String token(String oin) {
        return iam.token(oin);
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
