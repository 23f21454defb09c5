package nl.overheid.moz.nmc.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import java.util.TreeSet;
import nl.overheid.moz.nmc.Nmc;
import nl.overheid.moz.nmc.testing.MutableClock;
import nl.overheid.moz.nmc.testing.ReadKeys;
import nl.overheid.moz.nmc.testing.TestDatabase;
import nl.overheid.moz.nmc.testing.TestIam;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.Test;

class ConfigurationReferenceTest {

    @Test
    void printKeys() {
        ReadKeys read = new ReadKeys();
        try (Nmc nmc = Nmc.start(read.wrap(TestNmc.config(TestDatabase.get(), new TestIam(), "http://127.0.0.1:9", false)),
                MutableClock.startingNow())) {
            nmc.runDutiesOnce();
        }
        new TreeSet<>(read.keys()).forEach(key -> System.out.println("KEY " + key));
    }
}
