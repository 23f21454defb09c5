package nl.overheid.moz.nmc.testing;

import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import java.util.Base64;

/** EC P-256 key pairs for the NMC's webhook signing in tests, PEM-encoded as the configuration takes them. */
public final class TestWebhookKeys {

    /** The test configuration's signing key. */
    public static final TestWebhookKeys CURRENT = generate("test-webhook-1");

    public final String kid;
    public final KeyPair keyPair;

    private TestWebhookKeys(String kid, KeyPair keyPair) {
        this.kid = kid;
        this.keyPair = keyPair;
    }

    public static TestWebhookKeys generate(String kid) {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"));
            return new TestWebhookKeys(kid, generator.generateKeyPair());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    public String privatePem() {
        return pem("PRIVATE KEY", keyPair.getPrivate().getEncoded());
    }

    public String publicPem() {
        return pem("PUBLIC KEY", keyPair.getPublic().getEncoded());
    }

    /** One entry of {@code webhook.signing-keys} as YAML flow mapping (PEM newlines escaped). */
    public String yaml(String publishFrom, String signFrom) {
        StringBuilder entry = new StringBuilder("{kid: \"" + kid + "\", private-key: \"" + escaped(privatePem())
                + "\", public-key: \"" + escaped(publicPem()) + "\"");
        if (publishFrom != null) {
            entry.append(", publish-from: \"").append(publishFrom).append('"');
        }
        if (signFrom != null) {
            entry.append(", sign-from: \"").append(signFrom).append('"');
        }
        return entry.append('}').toString();
    }

    private static String escaped(String pem) {
        return pem.replace("\n", "\\n");
    }

    private static String pem(String label, byte[] der) {
        return "-----BEGIN " + label + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der) + "\n-----END " + label + "-----\n";
    }
}
