package nl.overheid.moz.nmc.simulator;

import com.github.tomakehurst.wiremock.common.Notifier;
import java.util.function.Consumer;

/**
 * WireMock's log, kept free of personal data: info messages (request dumps) are dropped, and of an error only
 * the first non-blank line is kept (WireMock's "request was not matched" report would otherwise print the
 * whole request, body included).
 */
final class QuietNotifier implements Notifier {

    private final Consumer<String> log;

    QuietNotifier(Consumer<String> log) {
        this.log = log;
    }

    @Override
    public void info(String message) {
        // dropped: WireMock's info lines dump requests
    }

    @Override
    public void error(String message) {
        log.accept("wiremock: " + firstLine(message));
    }

    @Override
    public void error(String message, Throwable cause) {
        log.accept("wiremock: " + firstLine(message) + " (" + cause.getClass().getSimpleName() + ")");
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "";
        }
        return message.lines()
                .map(String::strip)
                .filter(line -> !line.isEmpty())
                .findFirst()
                .map(line -> line.length() > 200 ? line.substring(0, 200) + "…" : line)
                .orElse("");
    }
}
