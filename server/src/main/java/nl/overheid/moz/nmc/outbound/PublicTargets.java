package nl.overheid.moz.nmc.outbound;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.Optional;
import java.util.Set;

/**
 * Where the NMC may call a DV (its webhook and its management channel): only {@code https} on an allowed port (443
 * unless configured), and only at public addresses, so the NMC makes no requests into its own network — loopback,
 * link-local, private, carrier-grade NAT, unique-local, multicast, and the IPv6 forms that reach IPv4 addresses
 * (IPv4-mapped and -compatible, NAT64 {@code 64:ff9b::/96}, 6to4 {@code 2002::/16}, Teredo {@code 2001::/32}). The
 * dev configuration allows {@code http}, any port and local addresses. The host is resolved again before every call,
 * since what a name points at can change; the remaining window between that check and the connection is accepted.
 */
public final class PublicTargets {

    /** The port of https, the only one unless more are configured. */
    public static final Set<Integer> DEFAULT_PORTS = Set.of(443);

    private final boolean allowPrivate;
    private final Set<Integer> ports;

    public PublicTargets(boolean allowPrivate) {
        this(allowPrivate, DEFAULT_PORTS);
    }

    /** {@code ports}: the ports a URL may name (an URL without a port is https's 443). */
    public PublicTargets(boolean allowPrivate, Set<Integer> ports) {
        this.allowPrivate = allowPrivate;
        this.ports = Set.copyOf(ports);
    }

    /** What is wrong with the URL itself, checked at registration: empty when it may be used. */
    public Optional<String> refusedUrl(URI url) {
        if (url == null
                || !url.isAbsolute()
                || url.getHost() == null
                || url.getRawUserInfo() != null
                || url.getRawFragment() != null) {
            return Optional.of("url-invalid");
        }
        String scheme = url.getScheme().toLowerCase(java.util.Locale.ROOT);
        if (!scheme.equals("https") && !(allowPrivate && scheme.equals("http"))) {
            return Optional.of("url-not-https");
        }
        if (!allowPrivate) {
            int port = url.getPort() == -1 ? 443 : url.getPort();
            if (!ports.contains(port)) {
                return Optional.of("port-not-allowed");
            }
            String host = url.getHost().toLowerCase(java.util.Locale.ROOT);
            if (host.equals("localhost") || host.endsWith(".localhost")) {
                return Optional.of("address-not-public");
            }
            try {
                // An address written out needs no lookup (a name is checked at every call).
                String literal = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
                if (!isPublic(InetAddress.ofLiteral(literal))) {
                    return Optional.of("address-not-public");
                }
            } catch (IllegalArgumentException notALiteral) {
                // a name
            }
        }
        return Optional.empty();
    }

    /** The URL and every address its host resolves to now; empty when the call may be made. */
    public Optional<String> refused(URI url) {
        Optional<String> invalid = refusedUrl(url);
        if (invalid.isPresent() || allowPrivate) {
            return invalid;
        }
        try {
            for (InetAddress address : InetAddress.getAllByName(url.getHost())) {
                if (!isPublic(address)) {
                    return Optional.of("address-not-public");
                }
            }
            return Optional.empty();
        } catch (UnknownHostException e) {
            return Optional.of("dns");
        }
    }

    static boolean isPublic(InetAddress address) {
        if (address.isAnyLocalAddress()
                || address.isLoopbackAddress()
                || address.isLinkLocalAddress()
                || address.isSiteLocalAddress()
                || address.isMulticastAddress()) {
            return false;
        }
        byte[] bytes = address.getAddress();
        if (address instanceof Inet4Address) {
            int first = bytes[0] & 0xff;
            int second = bytes[1] & 0xff;
            return first != 0 // "this" network
                    && !(first == 100 && second >= 64 && second < 128) // carrier-grade NAT
                    && !(first == 192 && second == 0 && (bytes[2] & 0xff) == 0) // IETF protocol assignments
                    && !(first == 198 && (second == 18 || second == 19)) // benchmarking
                    && first < 240; // reserved and broadcast
        }
        if (address instanceof Inet6Address) {
            int first = bytes[0] & 0xff;
            if ((first & 0xfe) == 0xfc) {
                return false; // unique local fc00::/7
            }
            boolean zeros80 = true;
            for (int i = 0; i < 10; i++) {
                zeros80 &= bytes[i] == 0;
            }
            if (zeros80 && (bytes[10] & 0xff) == 0xff && (bytes[11] & 0xff) == 0xff) {
                // ::ffff:a.b.c.d: judge the IPv4 address
                try {
                    return isPublic(InetAddress.getByAddress(java.util.Arrays.copyOfRange(bytes, 12, 16)));
                } catch (UnknownHostException impossible) {
                    return false;
                }
            }
            if (zeros80 && bytes[10] == 0 && bytes[11] == 0) {
                return false; // IPv4-compatible ::a.b.c.d (deprecated; reaches an IPv4 address)
            }
            if (first == 0x00 && (bytes[1] & 0xff) == 0x64 && (bytes[2] & 0xff) == 0xff && (bytes[3] & 0xff) == 0x9b) {
                return false; // NAT64 64:ff9b::/96 (and 64:ff9b:1::/48, the local-use prefix, under it)
            }
            if (first == 0x20 && (bytes[1] & 0xff) == 0x02) {
                return false; // 6to4 2002::/16
            }
            if (first == 0x20 && (bytes[1] & 0xff) == 0x01 && bytes[2] == 0 && bytes[3] == 0) {
                return false; // Teredo 2001::/32
            }
        }
        return true;
    }
}
