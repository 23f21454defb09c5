package nl.overheid.moz.nmc.register;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import nl.overheid.moz.nmc.testing.MutableClock;
import nl.overheid.moz.nmc.testing.TestDatabase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The register's reads are cached for their TTL, read again after it, and dropped when the register is seeded. */
class RegisterCacheTest {

    private static final TestDatabase DB = TestDatabase.get();
    private static final String OIN = "00000001999999999000";
    private final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T10:00:00Z"));
    private final Register register = new Register(DB.shared(), new RegisterRepository(), clock, Duration.ofSeconds(5));

    @BeforeEach
    void seed() {
        DB.reset();
        register.upsert(
                List.of(new Berichttype("b-1", UUID.randomUUID(), "standaard", null, 5, "activiteit", null)),
                List.of(new Register.DvSeed(OIN, "DV", List.of("b-1"), 10)));
    }

    @Test
    void aDvIsReadOnceWithinTheTtlAndAgainAfterIt() {
        assertThat(register.dienstverlenerByOin(OIN).orElseThrow().quotaPerMinute())
                .isEqualTo(10);
        DB.execute("UPDATE dienstverlener SET quotum_per_minuut = 20", null);
        assertThat(register.dienstverlenerByOin(OIN).orElseThrow().quotaPerMinute())
                .as("cached")
                .isEqualTo(10);
        clock.advance(Duration.ofSeconds(5));
        assertThat(register.dienstverlenerByOin(OIN).orElseThrow().quotaPerMinute())
                .as("read again")
                .isEqualTo(20);
        assertThat(register.dienstverlenerByOin("00000001000000000000"))
                .as("an unknown OIN")
                .isEmpty();
    }

    @Test
    void berichttypenAreCachedAndSeedingDropsTheCache() {
        assertThat(register.berichttypen(Set.of("b-1", "b-2")).keySet()).containsExactly("b-1");
        register.upsert(
                List.of(new Berichttype("b-2", UUID.randomUUID(), "standaard", null, 5, "activiteit", null)),
                List.of());
        assertThat(register.berichttypen(Set.of("b-1", "b-2")).keySet()).containsExactlyInAnyOrder("b-1", "b-2");
        DB.execute("DELETE FROM berichttype WHERE code = 'b-2'", null);
        assertThat(register.berichttypen(Set.of("b-2"))).as("cached").containsKey("b-2");
        clock.advance(Duration.ofSeconds(6));
        assertThat(register.berichttypen(Set.of("b-2"))).isEmpty();
    }
}
