package nl.overheid.moz.nmc.conformance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import nl.overheid.moz.nmc.simulator.NotifyNlSimulator;
import nl.overheid.moz.nmc.simulator.ProfielserviceSimulator;
import nl.overheid.moz.nmc.testing.TestNmc;

/**
 * The two parties the NMC calls, as their simulators, wired to one NMC port: NotifyNL (its callbacks go to that
 * port) and the Profielservice. {@link #nmcConfig()} is the configuration that points an NMC at them; it goes on top
 * of {@link TestNmc#config} (which writes the processing log into this JVM's table of the test cluster's LDV store,
 * {@code TestLdv}: no party, a database).
 */
final class Simulators implements AutoCloseable {

    final int nmcPort;
    final NotifyNlSimulator notifyNl;
    final ProfielserviceSimulator profielservice;

    /** On the real clock, NotifyNL reaching each outcome and sending its receipt after {@code callbackDelay}. */
    Simulators(Duration callbackDelay) {
        this(callbackDelay, java.time.Clock.systemUTC());
    }

    /**
     * NotifyNL's notifications on {@code clock} (the NMC's, when a test moves it; then use a zero delay, since
     * an outcome is reached only when that clock has passed it).
     */
    Simulators(Duration callbackDelay, java.time.Clock clock) {
        this(callbackDelay, clock, line -> {});
    }

    /** As above, with every simulator's log lines going to {@code log} (a test that reads what they log). */
    Simulators(Duration callbackDelay, java.time.Clock clock, java.util.function.Consumer<String> log) {
        nmcPort = freePort();
        notifyNl = NotifyNlSimulator.start(NotifyNlSimulator.Config.builder()
                .port(0)
                .callbackUrl(URI.create("http://127.0.0.1:" + nmcPort + "/api/nmc/v1/notifynl-callback"))
                .callbackBearerToken(TestNmc.CALLBACK_TOKEN)
                .apiKey(TestNmc.NOTIFY_API_KEY)
                .templateIds(java.util.Set.of(java.util.UUID.fromString(TestNmc.TEMPLATE_ID)))
                // the NMC's second service: its own key, template and callback token
                .addService(new NotifyNlSimulator.Service(
                        TestNmc.NOTIFY_API_KEY_B,
                        TestNmc.CALLBACK_TOKEN_B,
                        java.util.Set.of(java.util.UUID.fromString(TestNmc.TEMPLATE_ID_B))))
                .callbackDelay(callbackDelay)
                .callbackRetryInterval(Duration.ofMillis(100))
                .log(log)
                .clock(clock)
                .build());
        profielservice = ProfielserviceSimulator.start(ProfielserviceSimulator.Config.builder()
                .port(0)
                .fscGrantHash(ProfielserviceSimulator.DEV_FSC_GRANT_HASH)
                .log(log)
                .build());
    }

    /** The NMC's port and the parties' addresses and tokens, as configuration (YAML). */
    String nmcConfig() {
        return """
                server:
                  port: %d
                profielservice:
                  base-url: "%s"
                  fsc:
                    grant-hash: '%s'
                """.formatted(nmcPort, profielservice.baseUrl(), ProfielserviceSimulator.DEV_FSC_GRANT_HASH);
    }

    /** Back to fresh simulators: no notifications, reports, calls or fault stubs. */
    void reset() {
        notifyNl.reset();
        profielservice.reset();
    }

    @Override
    public void close() {
        notifyNl.close();
        profielservice.close();
    }

    /**
     * A port for an NMC process to listen on, free now and below the ephemeral range (Linux: 32768 and up): a port
     * the kernel handed out (a {@code ServerSocket(0)}) can be taken as the local port of an outgoing connection
     * before the process binds it, which once failed a fault test's second instance ("Address already in use").
     */
    static int freePort() {
        java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
        for (int attempt = 0; attempt < 100; attempt++) {
            int port = random.nextInt(20_000, 32_000);
            try (ServerSocket socket = new ServerSocket(port, 1, java.net.InetAddress.getLoopbackAddress())) {
                return socket.getLocalPort();
            } catch (IOException inUse) {
                // try another
            }
        }
        throw new UncheckedIOException(new IOException("no free port between 20000 and 32000 in 100 tries"));
    }
}
