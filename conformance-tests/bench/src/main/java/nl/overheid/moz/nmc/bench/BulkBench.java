package nl.overheid.moz.nmc.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Benchmark 2, bulk: notifications per second accepted through {@code POST …/decentraal/notificaties/bulk}
 * (a dozen requests of {@value #ITEMS} items, {@value #BULK_CLIENTS} at a time, timed to the last answer)
 * beside single requests at
 * {@value #SINGLE_CLIENTS} clients, both on the same NMC and database in the same run; ten DVs. Counted are
 * the items answered 202. Without the endpoint (404/405) the benchmark reports "not available".
 */
final class BulkBench implements Benchmark {

    static final int ITEMS = 1000;
    static final int BULK_CLIENTS = 2;
    static final int SINGLE_CLIENTS = 16;
    private static final double TARGET = 5;

    private final ObjectMapper mapper = new ObjectMapper();

    @Override
    public String name() {
        return "bulk";
    }

    @Override
    public String measures() {
        return "notifications/s accepted through POST …/decentraal/notificaties/bulk (" + ITEMS + " items a request, "
                + BULK_CLIENTS + " at a time, 12 requests timed to the last answer, items answered 202 counted) beside"
                + " single POSTs at "
                + SINGLE_CLIENTS + " clients, same NMC and database, 10 DVs, engine off";
    }

    @Override
    public void run(BenchContext context, BenchmarkResult result) {
        String db = context.postgres().freshDatabase("bench_bulk");
        Duration point = context.pointDuration();
        // the bulk path's throughput, two calls at a time over ten DVs: a DV's second call within a second would meet
        // the production rate of bulk calls (one a second per DV), which the flood benchmark keeps
        BenchNmc.Options options = BenchNmc.Options.on(db).set("http.bulk-rate-limit-per-second", 100_000);
        try (BenchNmc nmc = BenchNmc.start(context, "bulk", options);
                HttpLoad load = new HttpLoad()) {
            List<String> tokens = IntStream.rangeClosed(1, BenchContext.NMC_DVS)
                    .mapToObj(i -> context.token(BenchContext.nmcOin(i)))
                    .toList();
            Requests requests = new Requests(nmc.baseUrl());

            HttpResponse<String> probe =
                    load.send(requests.bulk("probe", tokens, 1).apply(0));
            if (probe.statusCode() == 404 || probe.statusCode() == 405) {
                result.status(BenchmarkResult.Status.NOT_AVAILABLE)
                        .note("POST " + Requests.BULK + " answered " + probe.statusCode()
                                + ": the bulk endpoint is not in this build");
                return;
            }
            if (probe.statusCode() != 200 || accepted(new HttpLoad.Answer(probe.statusCode(), probe.body())) != 1) {
                result.status(BenchmarkResult.Status.FAILED)
                        .note("a bulk request of one item answered " + probe.statusCode()
                                + ", not 200 with one item 202: " + abbreviated(probe.body()));
                return;
            }

            // Warm-up of both paths, not measured.
            load.closedLoop(
                    SINGLE_CLIENTS,
                    Duration.ofSeconds(2),
                    requests.single("warmup", tokens),
                    HttpLoad.Worth.status(202));
            load.closedLoop(
                    BULK_CLIENTS, Duration.ofSeconds(2), requests.bulk("warmup", tokens, ITEMS), this::accepted);

            CpuMeter cpuSingle = CpuMeter.start(nmc.pid(), context.postmasterPid());
            HttpLoad.Outcome single = load.closedLoop(
                    SINGLE_CLIENTS, point, requests.single("single", tokens), HttpLoad.Worth.status(202));
            var cpuSingleUsed = cpuSingle.stop();
            // A fixed number of whole bulk requests, timed to the last answer: a duration would cut requests of
            // a thousand items off at its end.
            CpuMeter cpuBulk = CpuMeter.start(nmc.pid(), context.postmasterPid());
            HttpLoad.Outcome bulk = load.closedLoop(
                    BULK_CLIENTS,
                    Duration.ofMinutes(10),
                    bulkRequests(context),
                    requests.bulk("bulk", tokens, ITEMS),
                    this::accepted);
            var cpuBulkUsed = cpuBulk.stop();
            double ratio = bulk.okPerSecond() / single.okPerSecond();
            result.add(Figure.of("bulk, " + ITEMS + " items a request", bulk.okPerSecond(), "notifications/s")
                    .baseline(single.okPerSecond(), "single POSTs, " + SINGLE_CLIENTS + " clients, notifications/s")
                    .target("ratio ≥ " + (int) TARGET, ratio >= TARGET)
                    .details(bulk.latencies().summary("bulkRequest"))
                    .detail("bulkStatuses", bulk.statuses())
                    .detail("bulkRequests", bulk.requests())
                    .details(single.latencies().summary("single"))
                    .detail("singleStatuses", single.statuses())
                    .detail("cpuDuringBulk", cpuBulkUsed)
                    .detail("cpuDuringSingle", cpuSingleUsed)
                    .build());
            if (bulk.failed() > 0) {
                result.note("bulk requests that did not answer 200: " + bulk.statuses());
            }
            result.note("single POSTs for " + point.toSeconds() + " s, then " + bulkRequests(context) + " bulk requests"
                    + " timed to the last answer, both after a warm-up; items that did not get 202 are not counted");
        } finally {
            context.postgres().dropDatabase(db);
        }
    }

    private static int bulkRequests(BenchContext context) {
        return context.size(12, 4);
    }

    /** The items of a bulk answer with status 202 (0 unless the request itself was answered 200). */
    private long accepted(HttpLoad.Answer response) {
        if (response.statusCode() != 200) {
            return 0;
        }
        try {
            long accepted = 0;
            for (JsonNode item : mapper.readTree(response.body()).path("resultaten")) {
                if (item.path("status").asInt() == 202) {
                    accepted++;
                }
            }
            return accepted;
        } catch (Exception e) {
            return 0;
        }
    }

    private static String abbreviated(String body) {
        return body == null ? "" : body.length() > 300 ? body.substring(0, 300) + "…" : body;
    }
}
