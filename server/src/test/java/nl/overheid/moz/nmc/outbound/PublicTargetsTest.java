package nl.overheid.moz.nmc.outbound;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.URI;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PublicTargetsTest {

    private final PublicTargets production = new PublicTargets(false);
    private final PublicTargets dev = new PublicTargets(true);

    @ParameterizedTest
    @ValueSource(
            strings = {
                "127.0.0.1",
                "127.8.8.8",
                "10.1.2.3",
                "172.16.0.1",
                "192.168.1.1",
                "169.254.169.254",
                "0.0.0.0",
                "0.1.2.3",
                "100.64.0.1",
                "100.127.255.255",
                "224.0.0.1",
                "255.255.255.255",
                "198.18.0.1",
                "::1",
                "::",
                "fe80::1",
                "fc00::1",
                "fd12:3456::1",
                "ff02::1",
                "::ffff:10.0.0.1",
                "::ffff:127.0.0.1",
                // the IPv6 forms that reach an IPv4 address, even a public one
                "64:ff9b::808:808",
                "64:ff9b::a00:1",
                "64:ff9b:1::a00:1",
                "2002:808:808::1",
                "2002:a00:1::1",
                "2001:0:4136:e378:8000:63bf:3fff:fdd2",
                "::8.8.8.8",
                "::10.0.0.1"
            })
    void addressesInsideANetworkAreNotPublic(String address) throws Exception {
        assertThat(PublicTargets.isPublic(InetAddress.ofLiteral(address))).isFalse();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"8.8.8.8", "145.21.1.1", "100.128.0.1", "172.32.0.1", "2001:4860:4860::8888", "::ffff:8.8.8.8"})
    void publicAddressesArePublic(String address) throws Exception {
        assertThat(PublicTargets.isPublic(InetAddress.ofLiteral(address))).isTrue();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "http://dv.example.nl/hook",
                "ftp://dv.example.nl/hook",
                "https://127.0.0.1/hook",
                "https://[::1]:8443/hook",
                "https://localhost/hook",
                "https://api.localhost/hook",
                "https://user@dv.example.nl/x",
                "https://dv.example.nl/hook#fragment",
                "https://dv.example.nl:8443/hook",
                "https://dv.example.nl:80/hook",
                "https://8.8.8.8:22/hook",
                "/relative"
            })
    void productionRefusesTheseUrlsWithoutALookup(String url) {
        assertThat(production.refusedUrl(URI.create(url))).isPresent();
    }

    @Test
    void aPortOtherThan443IsTakenOnlyWhenConfigured() {
        assertThat(production.refusedUrl(URI.create("https://dv.example.nl:443/hook")))
                .isEmpty();
        assertThat(production.refusedUrl(URI.create("https://dv.example.nl:8443/hook")))
                .contains("port-not-allowed");
        assertThat(new PublicTargets(false, java.util.Set.of(443, 8443))
                        .refusedUrl(URI.create("https://dv.example.nl:8443/hook")))
                .isEmpty();
    }

    @Test
    void productionTakesAnHttpsNameAndDevTakesHttpAndLoopback() {
        assertThat(production.refusedUrl(URI.create("https://dv.example.nl/nmc-webhook/v1")))
                .isEmpty();
        assertThat(dev.refused(URI.create("http://127.0.0.1:8084/webhook"))).isEmpty();
        assertThat(dev.refusedUrl(URI.create("ftp://127.0.0.1/x"))).contains("url-not-https");
    }

    @Test
    void aNameThatResolvesIntoTheNetworkIsRefusedAtTheCall() {
        // "localhost" is refused by its name already; a name from /etc/hosts shows the lookup itself.
        assertThat(production
                        .refused(URI.create("https://ip6-localhost/hook"))
                        .or(() -> production.refused(URI.create("https://localhost.localdomain/hook"))))
                .hasValueSatisfying(reason -> assertThat(reason).isIn("address-not-public", "dns"));
        assertThat(production.refused(URI.create("https://does-not-exist.invalid/hook")))
                .contains("dns");
    }
}
