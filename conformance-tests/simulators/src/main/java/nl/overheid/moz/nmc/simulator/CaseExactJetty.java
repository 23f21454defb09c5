package nl.overheid.moz.nmc.simulator;

import com.github.tomakehurst.wiremock.common.JettySettings;
import com.github.tomakehurst.wiremock.core.Options;
import com.github.tomakehurst.wiremock.http.AdminRequestHandler;
import com.github.tomakehurst.wiremock.http.HttpServer;
import com.github.tomakehurst.wiremock.http.HttpServerFactory;
import com.github.tomakehurst.wiremock.http.StubRequestHandler;
import com.github.tomakehurst.wiremock.jetty11.Jetty11HttpServer;
import wiremock.org.eclipse.jetty.io.NetworkTrafficListener;
import wiremock.org.eclipse.jetty.server.ConnectionFactory;
import wiremock.org.eclipse.jetty.server.HttpConfiguration;
import wiremock.org.eclipse.jetty.server.ServerConnector;

/**
 * WireMock's Jetty with a case-sensitive header cache. Jetty's HTTP/1.1 parser keeps a per-connection cache of
 * header fields that by default matches <em>values</em> case-insensitively: on a kept-alive connection, after a
 * request with {@code Authorization: Bearer dev-token} a later {@code Bearer DEV-TOKEN} arrived as the
 * cached lower-case field, so a wrong token was accepted and an upper-case {@code traceparent} would be recorded
 * (and validated) as its lower-case twin. The contract simulators compare header values exactly, so they
 * need the exact bytes. Uses WireMock's shaded Jetty 11 classes (wiremock-standalone 3.13.2).
 */
final class CaseExactJetty implements HttpServerFactory {

    @Override
    public String getName() {
        return "case-exact-jetty";
    }

    @Override
    public HttpServer buildHttpServer(Options options, AdminRequestHandler admin, StubRequestHandler stubs) {
        return new Jetty11HttpServer(options, admin, stubs) {
            @Override
            protected ServerConnector createHttpConnector(
                    String bindAddress, int port, JettySettings settings, NetworkTrafficListener listener) {
                ServerConnector connector = super.createHttpConnector(bindAddress, port, settings, listener);
                for (ConnectionFactory factory : connector.getConnectionFactories()) {
                    if (factory instanceof HttpConfiguration.ConnectionFactory http) {
                        http.getHttpConfiguration().setHeaderCacheCaseSensitive(true);
                    }
                }
                return connector;
            }
        };
    }
}
