package nl.overheid.moz.nmc.simulator;

import java.time.Instant;

/**
 * One request that reached an endpoint of the Profielservice or LDV simulator (whatever it was answered),
 * kept so tests can assert trace propagation without reading WireMock's journal. Requests answered by a
 * test's own stub without the simulator's transformer never reach the simulator and are only in the journal
 * ({@code wireMock().getAllServeEvents()}).
 *
 * @param operation   the contract's {@code operationId}, e.g. {@code contactgegevensOpvragen}
 * @param traceparent the {@code traceparent} header as received, or null when there was none (also kept
 *                    when it did not match the contract's pattern and the call got a 400)
 * @param status      the simulator's HTTP status
 * @param receivedAt  the simulator's wall clock ({@code Clock.systemUTC()}) when the request reached it
 */
public record ReceivedCall(String operation, String traceparent, int status, Instant receivedAt) {}
