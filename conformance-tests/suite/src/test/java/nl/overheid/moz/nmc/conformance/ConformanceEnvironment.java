package nl.overheid.moz.nmc.conformance;

import nl.overheid.moz.nmc.Nmc;
import nl.overheid.moz.nmc.simulator.NotifyNlSimulator;
import nl.overheid.moz.nmc.testing.TestDatabase;
import nl.overheid.moz.nmc.testing.TestIam;
import nl.overheid.moz.nmc.testing.TestNmc;

/**
 * The running system the conformance tests talk to over HTTP only: the NMC with its background workers on
 * the real clock, PostgreSQL with the LDV store beside it, and the simulators of NotifyNL (calling back into the NMC)
 * and the Profielservice. One per test JVM.
 */
final class ConformanceEnvironment {

    private static ConformanceEnvironment instance;

    final TestIam iam = new TestIam();
    final Simulators parties;
    final NotifyNlSimulator notifyNl;
    final Nmc nmc;
    final String baseUrl;

    private ConformanceEnvironment() {
        TestDatabase database = TestDatabase.get();
        database.reset();
        parties = new Simulators(java.time.Duration.ofMillis(200));
        notifyNl = parties.notifyNl;
        nmc = Nmc.start(
                TestNmc.config(database, iam, notifyNl.baseUrl(), true, parties.nmcConfig() + """
                lifecycle:
                  mebv-period: PT2S
                  callback-window: PT1S
                  reconcile-steps: [PT1S, PT2S]
                  reconcile-interval: PT2S
                  notify-retention: PT30S
                engine:
                  poll-interval: PT0.1S
                  # the duties (among them the templates' placeholders) every two seconds
                  control-interval: PT2S
                notifynl:
                  # a send NotifyNL refuses for its setup is parked after three such refusals (1 s, 2 s apart),
                  # the third at least 3 s after the first
                  setup-error-max-tries: 3
                  setup-error-min-span: PT2S
                  # a template change at NotifyNL reaches acceptance within seconds
                  template-refresh-interval: PT2S
                """), Nmc.systemClock());
        baseUrl = "http://127.0.0.1:" + nmc.port();
        nl.overheid.moz.nmc.testing.TestLdv.get().stampInserts();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            nmc.close();
            parties.close();
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
}
