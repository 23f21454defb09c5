package nl.overheid.moz.nmc.receipts;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import nl.overheid.moz.nmc.sending.NotifyNlSettings;

/**
 * The bearer tokens of NotifyNL's delivery-receipt callbacks. NotifyNL configures the callback per service, each
 * with its own token; a token authenticates the services it was configured for, and a receipt is stored only
 * for an attempt of one of those services ({@link ReceiptStore#store(Set, ReceiptRepository.Incoming)}), so
 * one service's token cannot speak for another's notifications. Services that share a token (the default,
 * {@code notifynl.callback-token}) accept each other's receipts, as before.
 */
public final class CallbackTokens {

    private final Map<byte[], Set<String>> servicesByToken;

    private CallbackTokens(Map<byte[], Set<String>> servicesByToken) {
        this.servicesByToken = servicesByToken;
    }

    public static CallbackTokens from(NotifyNlSettings settings) {
        Map<String, Set<String>> byText = new LinkedHashMap<>();
        settings.services()
                .values()
                .forEach(service -> byText.computeIfAbsent(service.callbackToken(), token -> new TreeSet<>())
                        .add(service.name()));
        Map<byte[], Set<String>> byToken = new LinkedHashMap<>();
        byText.forEach((token, services) -> byToken.put(token.getBytes(StandardCharsets.UTF_8), Set.copyOf(services)));
        return new CallbackTokens(byToken);
    }

    /**
     * The services {@code presented} is the token of; empty when it is none of them. Every configured token is
     * compared, each with {@link MessageDigest#isEqual}, so the time taken depends on the number of tokens and
     * the presented token's length, never on how much of a secret it matches.
     */
    public Set<String> services(String presented) {
        byte[] candidate = presented.getBytes(StandardCharsets.UTF_8);
        Set<String> matched = Set.of();
        for (Map.Entry<byte[], Set<String>> token : servicesByToken.entrySet()) {
            if (MessageDigest.isEqual(candidate, token.getKey())) {
                matched = token.getValue();
            }
        }
        return matched;
    }
}
