package nl.overheid.moz.nmc.register;

import io.helidon.config.Config;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import nl.overheid.moz.nmc.refusal.Refusal;

/**
 * DVs and berichttypen from configuration ({@code register.seed}), upserted at start-up. For the local run
 * and tests; in production onboarding fills the register and this subtree is absent.
 */
public record RegisterSeed(List<Berichttype> berichttypen, List<Register.DvSeed> dienstverleners) {

    public static Optional<RegisterSeed> from(Config seed) {
        if (!seed.exists()) {
            return Optional.empty();
        }
        List<Berichttype> types = seed.get("berichttypen").asNodeList().orElse(List.of()).stream()
                .map(RegisterSeed::berichttype)
                .toList();
        List<Register.DvSeed> dvs = seed.get("dienstverleners").asNodeList().orElse(List.of()).stream()
                .map(RegisterSeed::dienstverlener)
                .toList();
        return Optional.of(new RegisterSeed(types, dvs));
    }

    private static Berichttype berichttype(Config node) {
        String code = node.get("code").asString().get();
        // Required: every LDV record names it, and a made-up default would be a false record.
        String activity = node.get("verwerkingsactiviteit")
                .asString()
                .orElseThrow(() -> new IllegalArgumentException("register.seed.berichttypen: berichttype " + code
                        + " needs its verwerkingsactiviteit (the processing activity of its LDV records)"));
        String dienst = node.get("profiel-dienst-naam").asString().orElse(null);
        List<Refusal.Invalid> errors = RegisterRules.berichttype(activity, dienst);
        if (!errors.isEmpty()) {
            throw new IllegalArgumentException(RegisterRules.describe("register.seed: berichttype " + code, errors));
        }
        return new Berichttype(
                code,
                UUID.fromString(node.get("template-id").asString().get()),
                node.get("notify-service").asString().orElse("standaard"),
                node.get("standaard-geldigheid").as(Duration.class).orElse(null),
                node.get("max-pogingenteller").asInt().orElse(5),
                activity,
                dienst);
    }

    private static Register.DvSeed dienstverlener(Config node) {
        String oin = node.get("oin").asString().get();
        String profielNaam = node.get("profiel-naam").asString().orElse(null);
        List<String> typen =
                node.get("identificatie-typen").asList(String.class).orElse(null);
        List<Refusal.Invalid> errors = RegisterRules.dienstverlener(profielNaam, typen);
        if (!errors.isEmpty()) {
            throw new IllegalArgumentException(RegisterRules.describe("register.seed: DV " + oin, errors));
        }
        return new Register.DvSeed(
                oin,
                node.get("naam").asString().orElse(oin),
                node.get("berichttypen").asList(String.class).orElse(List.of()),
                node.get("quotum-per-minuut").asInt().orElse(600),
                new Contract(
                        node.get("webhook-url").asString().map(URI::create).orElse(null),
                        node.get("webhook-max-mislukkingen").asInt().orElse(Contract.DEFAULT_WEBHOOK_MAX_FAILURES),
                        node.get("bevestigingstermijn")
                                .as(Duration.class)
                                .orElse(Contract.DEFAULT_ACKNOWLEDGEMENT_PERIOD),
                        node.get("max-cursorleeftijd").as(Duration.class).orElse(Contract.DEFAULT_MAX_CURSOR_AGE),
                        node.get("beheerkanaal").asString().map(URI::create).orElse(null)),
                profielNaam,
                typen);
    }

    /**
     * Refuses the seed when a DV's webhook URL or management channel is refused by {@code policy} (a reason, or
     * empty): the same rule the operator API applies.
     */
    public void requireWebhooks(java.util.function.Function<URI, Optional<String>> policy) {
        for (Register.DvSeed dv : dienstverleners) {
            check(policy, dv, "webhook-url", dv.contract().webhookUrl());
            check(policy, dv, "beheerkanaal", dv.contract().managementChannel());
        }
    }

    private static void check(
            java.util.function.Function<URI, Optional<String>> policy, Register.DvSeed dv, String key, URI url) {
        if (url != null) {
            policy.apply(url).ifPresent(reason -> {
                throw new IllegalArgumentException(
                        "register.seed: the " + key + " of DV " + dv.oin() + " is refused: " + reason);
            });
        }
    }

    /**
     * Refuses the seed when a berichttype names a NotifyNL service that is not {@code configured} (registration
     * fails, rather than every send of it).
     */
    public void requireNotifyServices(java.util.Set<String> configured) {
        for (Berichttype type : berichttypen) {
            if (!configured.contains(type.notifyService())) {
                throw new IllegalArgumentException("register.seed: berichttype " + type.code()
                        + " uses NotifyNL service "
                        + type.notifyService() + ", which has no configuration: set notifynl.services."
                        + type.notifyService() + ".api-key (configured: " + new java.util.TreeSet<>(configured) + ")");
            }
        }
    }

    public void apply(Register register) {
        register.upsert(berichttypen, dienstverleners);
    }
}
