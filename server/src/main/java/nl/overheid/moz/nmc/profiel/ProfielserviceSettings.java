package nl.overheid.moz.nmc.profiel;

import io.helidon.config.Config;
import java.net.URI;
import java.time.Duration;

/**
 * Where and how the Profielservice is called ({@code profielservice} subtree).
 *
 * @param baseUrl                the service's root, without the contract's base path, e.g.
 *                               {@code https://profielservice.example.nl} or, through FSC, the NMC's Outway
 * @param connectTimeout         bound of a connection attempt
 * @param readTimeout            bound of the whole exchange once connected: headers and body
 * @param maxAnswerBytes         a longer answer is refused (the call failed; postponed)
 * @param fscGrantHash           FSC only: the {@code Fsc-Grant-Hash} of the NMC's contract with the Profielservice;
 *                               null when the Profielservice is called directly
 * @param useUnverifiedAddresses whether an address with {@code isGeverifieerd: false} may receive a notification
 * @param invalidAddressReport   what a permanent failure of a centralised notification does at the Profielservice
 * @param reportBackoffMax       cap of the wait between tries of an invalid-address report (at most a day): the
 *                               Profielservice's or the LDV's failures postpone a report for as long as they last,
 *                               never park it (ADR 0024: an external failure does not count)
 */
public record ProfielserviceSettings(
        String baseUrl,
        Duration connectTimeout,
        Duration readTimeout,
        int maxAnswerBytes,
        String fscGrantHash,
        boolean useUnverifiedAddresses,
        InvalidAddressReport invalidAddressReport,
        Duration reportBackoffMax) {

    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);
    public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(5);
    /** A party's whole profile is a few kilobytes; a megabyte is far beyond any real one. */
    public static final int DEFAULT_MAX_ANSWER_BYTES = 1024 * 1024;
    /** A report waiting for the Profielservice is tried at least once a day, however long the outage. */
    public static final Duration DEFAULT_REPORT_BACKOFF_MAX = Duration.ofDays(1);

    /**
     * What happens at the Profielservice after a permanent failure (design §3, "ongeldig melden"): the real
     * contract has no operation to report an address invalid, only the soft delete of a contactgegeven.
     */
    public enum InvalidAddressReport {
        /** Soft-delete the contactgegeven that bounced ({@code DELETE /contactgegeven/{id}}). */
        DELETE,
        /** Do nothing there; count the need per DV ({@code nmc_invalid_address_reports_not_sent_total}). */
        NONE
    }

    public ProfielserviceSettings {
        URI uri = URI.create(baseUrl);
        if (uri.getScheme() == null || uri.getHost() == null) {
            throw new IllegalArgumentException("profielservice.base-url must be an absolute http(s) URL");
        }
        if (uri.getPath() != null && uri.getPath().contains("/api/profielservice")) {
            throw new IllegalArgumentException("profielservice.base-url is the service's root: the contract's paths "
                    + "carry /api/profielservice/v1 themselves");
        }
        if (maxAnswerBytes < 1024) {
            throw new IllegalArgumentException("profielservice.max-answer-bytes must be at least 1024");
        }
        if (reportBackoffMax == null
                || reportBackoffMax.isNegative()
                || reportBackoffMax.isZero()
                || reportBackoffMax.compareTo(Duration.ofDays(1)) > 0) {
            throw new IllegalArgumentException(
                    "profielservice.report-backoff-max must be positive and at most a day (P1D)");
        }
        if (fscGrantHash != null && !fscGrantHash.matches("[A-Za-z0-9$_+/=.-]{1,200}")) {
            throw new IllegalArgumentException("profielservice.fsc.grant-hash is not a grant hash");
        }
    }

    public static ProfielserviceSettings from(Config profielservice) {
        if (profielservice.get("report-max-postponements").exists()) {
            throw new IllegalArgumentException("profielservice.report-max-postponements is no longer read: an "
                    + "invalid-address report is postponed, never parked, after failures of the Profielservice or the "
                    + "LDV (profielservice.report-backoff-max caps the wait, default P1D)");
        }
        if (profielservice.get("token").exists()) {
            throw new IllegalArgumentException(
                    "profielservice.token is no longer read: the Profielservice has no "
                            + "authentication of its own; in production it is reached through FSC (profielservice.fsc.grant-hash)");
        }
        return new ProfielserviceSettings(
                profielservice
                        .get("base-url")
                        .asString()
                        .orElseThrow(() -> new IllegalArgumentException("profielservice.base-url is required")),
                profielservice.get("connect-timeout").as(Duration.class).orElse(DEFAULT_CONNECT_TIMEOUT),
                profielservice.get("read-timeout").as(Duration.class).orElse(DEFAULT_READ_TIMEOUT),
                profielservice.get("max-answer-bytes").asInt().orElse(DEFAULT_MAX_ANSWER_BYTES),
                profielservice.get("fsc.grant-hash").asString().orElse(null),
                profielservice.get("use-unverified-addresses").asBoolean().orElse(false),
                profielservice
                        .get("invalid-address-report")
                        .asString()
                        .map(value -> switch (value) {
                            case "delete" -> InvalidAddressReport.DELETE;
                            case "none" -> InvalidAddressReport.NONE;
                            default ->
                                throw new IllegalArgumentException(
                                        "profielservice.invalid-address-report must be delete or none");
                        })
                        .orElse(InvalidAddressReport.DELETE),
                profielservice.get("report-backoff-max").as(Duration.class).orElse(DEFAULT_REPORT_BACKOFF_MAX));
    }
}
