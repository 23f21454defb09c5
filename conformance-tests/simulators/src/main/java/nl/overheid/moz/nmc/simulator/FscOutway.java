package nl.overheid.moz.nmc.simulator;

import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * The FSC Outway in front of the simulated Profielservice, as far as the NMC can tell it apart: when the
 * simulator is configured with a grant hash, every request must carry that {@code Fsc-Grant-Hash} and an
 * {@code Fsc-Transaction-Id} that is a UUIDv7, checked in that order before the service sees the request;
 * otherwise the answer is the Outway's error (see {@link ProfielserviceSimulator}, "FSC", for the sources and
 * for what the simulator decided where they do not settle it): status 400, the header {@value #ERROR_CODE_HEADER}
 * carrying the code, and an {@code application/json} body {@code {message, domain: "ERROR_DOMAIN_OUTWAY", code}}
 * (FSC core's {@code error} schema). Such an answer does not come from the Profielservice, so it carries neither
 * {@code API-Version} nor the service's security headers. Neither the grant hash nor the transaction id sent is
 * ever echoed in the body.
 *
 * <p>When the checks pass, the Outway (FSC Logging: "The Outway MUST add the TransactionID to the response sent
 * to the Client") returns the transaction id in {@code Fsc-Transaction-Id} on the service's answer. Without a
 * grant hash configured, nothing is checked or added.
 */
final class FscOutway {

    static final String GRANT_HASH_HEADER = "Fsc-Grant-Hash";
    static final String TRANSACTION_ID_HEADER = "Fsc-Transaction-Id";
    static final String ERROR_CODE_HEADER = "Fsc-Error-Code";

    /** RFC 9562's canonical text: 8-4-4-4-12 hex digits, either case. */
    private static final Pattern UUID_TEXT =
            Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    private final String grantHash;

    /** @param grantHash the grant hash the Outway knows, or null for no FSC in front of the service */
    FscOutway(String grantHash) {
        this.grantHash = grantHash;
    }

    boolean enabled() {
        return grantHash != null;
    }

    /**
     * The Outway's refusal of a request with these headers (null when absent), or empty when it passes it on.
     */
    Optional<ProfielEndpoint.Answer> refusal(String presentedGrantHash, String transactionId) {
        if (!enabled()) {
            return Optional.empty();
        }
        if (presentedGrantHash == null || presentedGrantHash.isBlank()) {
            return Optional.of(
                    error(ProfielserviceSimulator.FSC_GRANT_HASH_MISSING, "the Fsc-Grant-Hash header is missing"));
        }
        if (!presentedGrantHash.equals(grantHash)) {
            return Optional.of(error(
                    ProfielserviceSimulator.FSC_UNKNOWN_GRANT_HASH,
                    "no ServiceConnectionGrant with the hash in the Fsc-Grant-Hash header"));
        }
        if (transactionId == null || transactionId.isBlank()) {
            return Optional.of(error(
                    ProfielserviceSimulator.FSC_TRANSACTION_ID_MISSING, "the Fsc-Transaction-Id header is missing"));
        }
        if (!isUuidV7(transactionId)) {
            return Optional.of(error(
                    ProfielserviceSimulator.FSC_TRANSACTION_ID_INVALID,
                    "the Fsc-Transaction-Id header must be a UUID of version 7"));
        }
        return Optional.empty();
    }

    /** A UUID in canonical text with version 7 and the RFC 9562 variant. */
    static boolean isUuidV7(String text) {
        if (text == null || !UUID_TEXT.matcher(text).matches()) {
            return false;
        }
        UUID uuid = UUID.fromString(text);
        return uuid.version() == 7 && uuid.variant() == 2;
    }

    /** A UUID in canonical text, any version: safe to put in a log line. */
    static boolean isUuid(String text) {
        return text != null && UUID_TEXT.matcher(text).matches();
    }

    private static ProfielEndpoint.Answer error(String code, String message) {
        String body =
                JsonText.write(JsonText.object("message", message, "domain", "ERROR_DOMAIN_OUTWAY", "code", code));
        return ProfielEndpoint.Answer.outway(400, body, code);
    }
}
