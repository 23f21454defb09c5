package nl.overheid.moz.nmc.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import nl.overheid.moz.nmc.testing.TestLdv;

/**
 * The processing log held to the parties' journals: every call the NMC made to NotifyNL and the Profielservice
 * with personal data (each simulator's WireMock journal, faults included; not the template lookups) has exactly one
 * record in the LDV store, with the call's
 * trace and span ({@code traceparent}), stored before the call arrived — the store's own clock at the insert
 * ({@link TestLdv#stampInserts()}) against the simulator's arrival time, one wall clock — and every call that failed
 * has an ERROR record, a child of its record. No record holds a secret of the test.
 */
final class LdvRecords {

    private LdvRecords() {}

    /** What was checked, for a report line. */
    record Checked(int calls, int failedCalls, int records) {}

    static Checked assertEveryCallRecordedFirst(Simulators parties, Collection<String> secrets) {
        List<ServeEvent> calls = new ArrayList<>();
        calls.addAll(journal(parties.notifyNl.wireMock()));
        calls.addAll(journal(parties.profielservice.wireMock()));
        TestLdv ldv = TestLdv.get();
        int failed = 0;
        for (ServeEvent call : calls) {
            String name =
                    call.getRequest().getMethod() + " " + call.getRequest().getUrl();
            if (call.getRequest().getUrl().startsWith("/v2/template/")) {
                // A template's placeholders (issue 17): no person's data goes or comes, so no processing to log.
                assertThat(call.getRequest().getMethod().getName()).as(name).isEqualTo("GET");
                continue;
            }
            String traceparent = call.getRequest().getHeader("traceparent");
            assertThat(traceparent).as(name + " carries a traceparent").isNotNull();
            String[] parts = traceparent.split("-");
            TestLdv.Row record = ldv.row(parts[1], parts[2])
                    .orElseThrow(() ->
                            new AssertionError("no record in the LDV store for " + name + " (" + traceparent + ")"));
            assertThat(record.status()).as("the record of " + name).isEqualTo("UNSET");
            Instant arrived = call.getRequest().getLoggedDate().toInstant();
            assertThat(record.storedAt())
                    .as("the record of " + name + " stored (the store's clock) before the call arrived")
                    .isNotNull();
            assertThat(record.storedAt().truncatedTo(ChronoUnit.MILLIS)).isBeforeOrEqualTo(arrived);
            List<TestLdv.Row> errors = ldv.children(parts[1], parts[2]);
            assertThat(errors).allSatisfy(error -> assertThat(error.status()).isEqualTo("ERROR"));
            if (failed(call)) {
                failed++;
                assertThat(errors)
                        .as(name + " answered " + call.getResponse().getStatus() + ": one ERROR record")
                        .hasSize(1);
            } else {
                assertThat(errors)
                        .as(name + " answered " + call.getResponse().getStatus()
                                + ": no ERROR record (unless the NMC gave up waiting)")
                        .hasSizeLessThanOrEqualTo(1);
            }
        }
        List<TestLdv.Row> rows = ldv.rows();
        for (TestLdv.Row row : rows) {
            for (String secret : secrets) {
                assertThat(row.json()).as("an LDV record").doesNotContain(secret);
            }
        }
        return new Checked(calls.size(), failed, rows.size());
    }

    private static List<ServeEvent> journal(WireMockServer party) {
        return party.getAllServeEvents();
    }

    /**
     * Whether the NMC took this answer as a failed call: anything but NotifyNL's 201 or its 400 (the address refused:
     * processed), its 200 or 404 to a status query, the Profielservice's 200 or its own 404 to a lookup, its 204 or
     * 404 to a delete.
     */
    static boolean failed(ServeEvent call) {
        int status = call.getResponse().getStatus();
        String method = call.getRequest().getMethod().getName();
        String path = call.getRequest().getUrl();
        if (path.startsWith("/v2/notifications/email")) {
            return status != 201 && status != 400;
        }
        if (path.startsWith("/v2/notifications")) {
            return status != 200 && status != 404;
        }
        if (method.equals("DELETE")) {
            return status != 204 && status != 404;
        }
        return status != 200 && status != 404;
    }
}
