package nl.overheid.moz.nmc.register;

import io.helidon.config.Config;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

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
                .map(
                        node -> new Berichttype(
                                node.get("code").asString().get(),
                                UUID.fromString(
                                        node.get("template-id").asString().get()),
                                node.get("notify-service").asString().orElse("standaard"),
                                node.get("standaard-geldigheid")
                                        .as(Duration.class)
                                        .orElse(null),
                                node.get("max-pogingenteller").asInt().orElse(5),
                                // Required: every LDV record names it, and a made-up default would be a false record.
                                node.get("verwerkingsactiviteit")
                                        .asString()
                                        .orElseThrow(
                                                () -> new IllegalArgumentException(
                                                        "register.seed.berichttypen: berichttype "
                                                                + node.get("code")
                                                                        .asString()
                                                                        .orElse("?")
                                                                + " needs its verwerkingsactiviteit (the processing activity of its LDV records)"))))
                .toList();
        List<Register.DvSeed> dvs = seed.get("dienstverleners").asNodeList().orElse(List.of()).stream()
                .map(node -> new Register.DvSeed(
                        node.get("oin").asString().get(),
                        node.get("naam")
                                .asString()
                                .orElse(node.get("oin").asString().get()),
                        node.get("berichttypen").asList(String.class).orElse(List.of()),
                        node.get("quotum-per-minuut").asInt().orElse(600),
                        new Contract(
                                node.get("webhook-url")
                                        .asString()
                                        .map(URI::create)
                                        .orElse(null),
                                node.get("webhook-max-mislukkingen")
                                        .asInt()
                                        .orElse(Contract.DEFAULT_WEBHOOK_MAX_MISLUKKINGEN),
                                node.get("bevestigingstermijn")
                                        .as(Duration.class)
                                        .orElse(Contract.DEFAULT_BEVESTIGINGSTERMIJN),
                                node.get("max-cursorleeftijd")
                                        .as(Duration.class)
                                        .orElse(Contract.DEFAULT_MAX_CURSORLEEFTIJD),
                                node.get("beheerkanaal")
                                        .asString()
                                        .map(URI::create)
                                        .orElse(null))))
                .toList();
        return Optional.of(new RegisterSeed(types, dvs));
    }

    /** Refuses the seed when a DV's webhook URL is refused by {@code policy} (a reason, or empty). */
    public void requireWebhooks(java.util.function.Function<URI, Optional<String>> policy) {
        for (Register.DvSeed dv : dienstverleners) {
            URI url = dv.contract().webhookUrl();
            if (url != null) {
                policy.apply(url).ifPresent(reason -> {
                    throw new IllegalArgumentException(
                            "register.seed: the webhook-url of DV " + dv.oin() + " is refused: " + reason);
                });
            }
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
