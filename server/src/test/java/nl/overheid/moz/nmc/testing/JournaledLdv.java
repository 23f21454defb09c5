package nl.overheid.moz.nmc.testing;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import nl.overheid.moz.nmc.Parties;
import nl.overheid.moz.nmc.ldv.ProcessingLog;

/**
 * The real processing log with every stored row mirrored into the parties' WireMock journal, in the order things
 * happened in this process: after the store acknowledged a record, the row read back from the store (proof that it
 * is there) is posted to {@link PartiesStub#LDV_PATH}, so the journal shows a record and the call it is about in the
 * exact order the NMC made them. The same for the ERROR record of a call that failed. The journal post happens after
 * the store's commit and before the NMC goes on, so a call in the journal after a record was made after it was stored.
 */
public final class JournaledLdv implements ProcessingLog {

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final ProcessingLog log;
    private final URI journal;

    public JournaledLdv(ProcessingLog log, String partiesBaseUrl) {
        this.log = log;
        this.journal = URI.create(partiesBaseUrl + PartiesStub.LDV_PATH);
    }

    /** {@code parties} with their processing log journaled into the stub at {@code partiesBaseUrl}. */
    public static Parties around(Parties parties, String partiesBaseUrl) {
        return parties.withLdv(new JournaledLdv(parties.ldv(), partiesBaseUrl));
    }

    @Override
    public Written record(Processing processing) {
        Written written = log.record(processing);
        if (written instanceof Written.Acknowledged) {
            post(TestLdv.get()
                    .row(processing.span().traceId(), processing.span().spanId())
                    .orElseThrow(() -> new AssertionError("acknowledged, but not in the store")));
        }
        return written;
    }

    @Override
    public void failed(Processing processing, String reason, Instant at) {
        log.failed(processing, reason, at);
        List<TestLdv.Row> errors = TestLdv.get()
                .children(processing.span().traceId(), processing.span().spanId());
        errors.forEach(this::post);
    }

    private void post(TestLdv.Row row) {
        try {
            HTTP.send(
                    HttpRequest.newBuilder(journal)
                            .timeout(Duration.ofSeconds(5))
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(row.json()))
                            .build(),
                    HttpResponse.BodyHandlers.discarding());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        log.close();
    }
}
