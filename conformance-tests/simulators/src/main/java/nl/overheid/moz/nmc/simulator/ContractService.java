package nl.overheid.moz.nmc.simulator;

import com.github.tomakehurst.wiremock.http.HttpHeader;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * What the endpoints of one contract simulator (Profielservice or LDV) share: the API version every response
 * carries, the base of its problem type URIs, the one bearer token it accepts, its log, its clock and the
 * journal of {@link ReceivedCall}s.
 *
 * @param apiVersion      the {@code API-Version} header of every response (the contract's {@code info.version})
 * @param problemTypeBase prefix of the problem types, e.g. {@code https://profielservice.example.nl/problemen/}
 * @param bearerToken     the only accepted {@code Authorization: Bearer} token
 * @param log             one line per request; never personal data
 */
record ContractService(
        String apiVersion,
        String problemTypeBase,
        String bearerToken,
        Consumer<String> log,
        Clock clock,
        CallJournal calls) {

    /** Calls kept by {@link CallJournal}: the newest, like WireMock's journal. */
    static final int CALL_JOURNAL_LIMIT = 20_000;

    void log(String line) {
        log.accept(line);
    }

    String problemType(String slug) {
        return problemTypeBase + slug;
    }

    /**
     * Checks {@code Authorization: Bearer <token>} (scheme case-insensitive, RFC 9110 §11.1; the token compared
     * in constant time).
     *
     * @return empty when authorised, else why not (for the log; never the token)
     */
    Optional<String> refusal(HttpHeader authorization) {
        if (authorization == null || !authorization.isPresent()) {
            return Optional.of("no Authorization header");
        }
        String value = authorization.firstValue().strip();
        int space = value.indexOf(' ');
        if (space < 0 || !value.substring(0, space).toLowerCase(Locale.ROOT).equals("bearer")) {
            return Optional.of("not a Bearer token");
        }
        byte[] presented = value.substring(space + 1).strip().getBytes(StandardCharsets.UTF_8);
        return MessageDigest.isEqual(presented, bearerToken.getBytes(StandardCharsets.UTF_8))
                ? Optional.empty()
                : Optional.of("wrong token");
    }

    /** The newest {@value #CALL_JOURNAL_LIMIT} calls, in the order they were answered. Thread-safe. */
    static final class CallJournal {
        private final ArrayDeque<ReceivedCall> calls = new ArrayDeque<>();

        synchronized void add(ReceivedCall call) {
            if (calls.size() == CALL_JOURNAL_LIMIT) {
                calls.removeFirst();
            }
            calls.addLast(call);
        }

        synchronized List<ReceivedCall> all() {
            return List.copyOf(calls);
        }

        synchronized void clear() {
            calls.clear();
        }
    }
}
