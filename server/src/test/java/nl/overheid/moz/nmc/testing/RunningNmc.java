package nl.overheid.moz.nmc.testing;

import java.time.Clock;
import nl.overheid.moz.nmc.Nmc;

/**
 * The real NMC on the test database with WireMock parties and a raw-HTTP client to it, for tests that talk to it
 * from outside; closing stops both.
 */
public record RunningNmc(PartiesStub parties, Nmc nmc, Http http) implements AutoCloseable {

    /** Starts on the test configuration with {@code overridesYaml} on top; workers are off. */
    public static RunningNmc start(TestDatabase database, TestIam iam, Clock clock, String overridesYaml) {
        PartiesStub parties = new PartiesStub();
        try {
            Nmc nmc = Nmc.start(TestNmc.config(database, iam, parties.baseUrl(), false, overridesYaml), clock);
            return new RunningNmc(parties, nmc, Http.of(nmc));
        } catch (RuntimeException e) {
            parties.close();
            throw e;
        }
    }

    public int port() {
        return nmc.port();
    }

    @Override
    public void close() {
        nmc.close();
        parties.close();
    }
}
