package nl.overheid.moz.nmc;

import io.helidon.config.Config;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import nl.overheid.moz.nmc.db.Database;

/**
 * What the NMC refuses to start with, checked before anything else. Everywhere: a NotifyNL callback token weaker
 * than 32 random bytes. Unless {@code dev: true} (the local run and the tests): any of the public dev values of
 * {@code scripts/dev/} anywhere in the configuration (the KEK, the peppers, the cursor key, the NotifyNL keys and
 * tokens), a JWKS fetched over plain {@code http}, and webhook or management-channel targets in the own network;
 * and, once the database is open, a login that may act as the schema's owner ({@link #checkLogin}). Every refusal
 * names the configuration key, never the value.
 */
final class StartGuard {

    /**
     * SHA-256 of every public dev value of {@code scripts/dev/nmc-dev.yaml} and {@code scripts/run} (digests, so the
     * values are not copied into the product); {@code StartGuardTest} reads those files and keeps this list complete.
     */
    static final Set<String> DEV_VALUE_DIGESTS = Set.of(
            "f40f436fc5433f3ab5b53917f52b1d1205534a24b9b41aeca3fd8bf44f05eab1", // notifynl.callback-token
            "9b890b8235f8a16e5f67f061b6a895bfaa45c1001322336c8b30767be8df5784", // services.standaard.api-key
            "7270248f2a7ea7ee20cb2c53e4f977edbfead0ad8151d7c060200abc9d57e48d", // services.vergunningen.api-key
            "46dac160d28af7a90578f1e6691670eb5cc2e7269c6b9a9f859ba7eb515379b8", // services.vergunningen.callback-token
            "426964af8a8758888e7ac5932df0dc267230c71b655ebcc72367a193b45c0948", // privacy.pepper 1
            "515dc25f03eb8b325b45969b07061c657919f5e28324a3ecc456dc36892eefa0", // privacy.payload-pepper 1
            "5807c71c4050f254a21ce2f5f2c80993b0cfbacfe35b6ada514f8c7b4d3be1fa", // privacy.ldv-pepper 1
            "99df6da440c4b94b85a3ecc959ff07fd045b5075f10cf59dbaffde4558a38f26", // privacy.kek 1
            "1df69c7ab6bda4448acd8b98855bcf2f33d1cf5d73321a78012031308c093270"); // feed.cursor-key

    /** 32 random bytes: what a callback token must be worth at least (estimated from its length and alphabet). */
    static final int MIN_TOKEN_BITS = 256;

    private StartGuard() {}

    /**
     * Outside dev, with a schema it only validates (production: the migration step migrates as the owner): throws
     * when the NMC's own login may act as the schema's owner or is a superuser. A foothold in such an NMC could disable
     * the transition trigger, rewrite the event log or erase the audit, which the runtime role cannot.
     */
    static void checkLogin(Config config, Database database, String schemaMode) {
        if (config.get("dev").asBoolean().orElse(false) || schemaMode.equals("migrate")) {
            return;
        }
        if (database.loginMayActAsOwner()) {
            throw new IllegalStateException("db.user may act as the owner of the NMC's schema or is a superuser: the"
                    + " NMC runs as a login that is a member of nmc_runtime only (server/OPERATIONS.md, \"Database"
                    + " roles\"); the owner is for the migration step");
        }
    }

    /** Throws when the configuration must not start an NMC; the message lists every reason. */
    static void check(Config config) {
        List<String> refusals = new ArrayList<>();
        callbackTokens(config).forEach((key, token) -> {
            if (estimatedBits(token) < MIN_TOKEN_BITS) {
                refusals.add(key + " must be at least 32 random bytes (e.g. openssl rand -base64 32)");
            }
        });
        if (!config.get("dev").asBoolean().orElse(false)) {
            config.traverse()
                    .filter(Config::isLeaf)
                    .filter(node -> node.asString()
                            .map(value -> DEV_VALUE_DIGESTS.contains(sha256(value.trim())))
                            .orElse(false))
                    .forEach(node -> refusals.add(node.key() + " holds a public dev value of scripts/dev"));
            for (String key : List.of("auth.jwks-uri", "auth.operator.jwks-uri")) {
                config.get(key).asString().ifPresent(uri -> {
                    String scheme = URI.create(uri).getScheme();
                    if (scheme != null && !scheme.equalsIgnoreCase("https") && !scheme.equalsIgnoreCase("file")) {
                        refusals.add(key + " must be https (or a mounted file)");
                    }
                });
            }
            if (config.get("webhook.allow-private-targets").asBoolean().orElse(false)) {
                refusals.add("webhook.allow-private-targets is for dev only");
            }
        }
        if (!refusals.isEmpty()) {
            throw new IllegalArgumentException("the NMC does not start: " + String.join("; ", refusals)
                    + (config.get("dev").asBoolean().orElse(false) ? "" : " (dev is not true)"));
        }
    }

    /** The callback tokens by their key: the default and every service's own. */
    private static java.util.Map<String, String> callbackTokens(Config config) {
        java.util.Map<String, String> tokens = new java.util.TreeMap<>();
        config.get("notifynl.callback-token").asString().ifPresent(t -> tokens.put("notifynl.callback-token", t));
        config.get("notifynl.services")
                .asNodeList()
                .orElse(List.of())
                .forEach(service -> service.get("callback-token")
                        .asString()
                        .ifPresent(t -> tokens.put(service.key() + ".callback-token", t)));
        return tokens;
    }

    /**
     * A coarse estimate of a token's strength: its length times the bits per character of the smallest common
     * alphabet it fits (hex 4, base64 and base64url 6, else printable ASCII 6.5), and none if it repeats a few
     * characters only. It cannot prove randomness; it refuses what is plainly not random or too short.
     */
    static double estimatedBits(String token) {
        if (token.chars().distinct().count() < 10) {
            return 0;
        }
        double perCharacter;
        if (token.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
            perCharacter = 4;
        } else if (token.chars()
                .allMatch(c -> (c >= 'A' && c <= 'Z')
                        || (c >= 'a' && c <= 'z')
                        || (c >= '0' && c <= '9')
                        || c == '-'
                        || c == '_'
                        || c == '+'
                        || c == '/'
                        || c == '=')) {
            perCharacter = 6;
        } else {
            perCharacter = 6.5;
        }
        return token.replace("=", "").length() * perCharacter;
    }

    static String sha256(String value) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
