package nl.overheid.moz.nmc;

import io.helidon.config.Config;
import java.util.Map;
import nl.overheid.moz.nmc.feed.CursorCodec;
import nl.overheid.moz.nmc.ldv.DataSubjects;
import nl.overheid.moz.nmc.privacy.ConfiguredKeks;
import nl.overheid.moz.nmc.privacy.Envelope;
import nl.overheid.moz.nmc.privacy.KekProvider;
import nl.overheid.moz.nmc.privacy.Peppers;
import nl.overheid.moz.nmc.retention.KeyRewrap;
import nl.overheid.moz.nmc.retention.PepperCompromises;
import nl.overheid.moz.nmc.retention.RetentionRepository;
import nl.overheid.moz.nmc.webhook.SigningKeys;

/**
 * The NMC's keys and what works with them (design §9): the envelope under the KEK, a pepper per purpose and
 * their compromised versions, the LDV's pseudonyms, the feed's cursor key and the webhook's signing keys. Built
 * before anything is served, so a missing or unusable key refuses the start.
 */
record Keys(
        Envelope envelope,
        Peppers peppers,
        Peppers payloadPeppers,
        Peppers ldvPeppers,
        DataSubjects dataSubjects,
        PepperCompromises pepperCompromises,
        KeyRewrap keyRewrap,
        CursorCodec cursors,
        SigningKeys signingKeys) {

    static Keys create(Config config, Core core) {
        Envelope envelope = new Envelope(kekProvider(config.get("privacy.kek")));
        Peppers peppers = Peppers.from(config.get("privacy.pepper"));
        Peppers payloadPeppers = Peppers.from(config.get("privacy.payload-pepper"));
        Peppers ldvPeppers = Peppers.from(config.get("privacy.ldv-pepper"));
        java.util.Map<String, Peppers> byKey = new java.util.LinkedHashMap<>();
        byKey.put("privacy.pepper", peppers);
        byKey.put("privacy.payload-pepper", payloadPeppers);
        byKey.put("privacy.ldv-pepper", ldvPeppers);
        Peppers.requireOnePerPurpose(byKey);
        RetentionRepository retention = new RetentionRepository();
        PepperCompromises pepperCompromises = new PepperCompromises(
                core.database(),
                retention,
                Map.of(
                        PepperCompromises.Purpose.DVREF,
                        peppers,
                        PepperCompromises.Purpose.PAYLOAD,
                        payloadPeppers,
                        PepperCompromises.Purpose.LDV,
                        ldvPeppers),
                core.clock());
        pepperCompromises.refresh();
        KeyRewrap keyRewrap = new KeyRewrap(
                core.database(),
                retention,
                envelope,
                core.metrics(),
                core.settings().retention().batchSize(),
                core.settings().retention().timeBudget());
        keyRewrap.requireConfiguredVersions();
        return new Keys(
                envelope,
                peppers,
                payloadPeppers,
                ldvPeppers,
                new DataSubjects(ldvPeppers),
                pepperCompromises,
                keyRewrap,
                new CursorCodec(core.settings().nmc().cursorKey()),
                SigningKeys.from(
                        config.get("webhook.signing-keys"), core.settings().webhook(), core.clock()));
    }

    /** The KEK provider {@code privacy.kek.provider} names; the configuration's own keys are the only one so far. */
    private static KekProvider kekProvider(Config kek) {
        String provider = kek.get("provider").asString().orElse("configuration");
        if (!provider.equals("configuration")) {
            throw new IllegalArgumentException("privacy.kek.provider: unknown provider " + provider
                    + " (implement KekProvider for the platform's key service)");
        }
        return ConfiguredKeks.from(kek);
    }
}
