package nl.overheid.moz.nmc.bench;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Benchmark 5, fairness: DV A has a large backlog of accepted notifications (written in SQL, sealed with
 * the server's envelope: {@link SealedBacklog}); while the engine works through it, DV B submits
 * {@value #B_COUNT} through the API. B's wait from {@code aangenomen} to {@code verzonden} (the events'
 * times), in seconds and in claim rounds, beside the same {@value #B_COUNT} submitted by B to the same
 * engine with nothing else waiting (measured first, in the same run, after a warm-up). A round is {@code engine.batch-size}
 * claimed send tasks; a notification's wait in rounds is the number of sends (of any DV) that started
 * between its acceptance and its {@code verzonden}, divided by the batch size, which counts whole rounds
 * exactly while A's backlog keeps every round full.
 */
final class FairnessBench implements Benchmark {

    static final int B_COUNT = 100;
    static final int BATCH_SIZE = 50; // engine.batch-size's production default, set explicitly below
    private static final double TARGET_ROUNDS = 2;

    @Override
    public String name() {
        return "fairness";
    }

    @Override
    public String measures() {
        return "DV B's wait from aangenomen to verzonden for " + B_COUNT + " notifications submitted while DV A has"
                + " a large backlog (unlimited budget, instant NotifyNL), in claim rounds of " + BATCH_SIZE
                + " sends, beside the same submission to the idle engine";
    }

    private record Waits(List<Double> seconds, List<Double> rounds) {}

    @Override
    public void run(BenchContext context, BenchmarkResult result) throws Exception {
        int backlog = context.size(100_000, 10_000);
        String db = context.postgres().freshDatabase("bench_fairness");
        String a = BenchContext.nmcOin(1);
        String idle = BenchContext.nmcOin(3);
        String warmup = BenchContext.nmcOin(4);
        String b = BenchContext.nmcOin(2);
        BenchNmc.Options engine = EngineBench.engineOptions(db).set("engine.batch-size", BATCH_SIZE);
        try {
            Waits alone;
            try (BenchNmc nmc = BenchNmc.start(context, "fairness-idle", engine)) {
                submitAndWait(context, nmc, db, warmup); // the fresh JVM's warm-up, not measured
                alone = submitAndWait(context, nmc, db, idle);
            }

            long generating = System.nanoTime();
            SealedBacklog.write(context, db, context.dvId(db, a), backlog);
            context.postgres().execute(db, "VACUUM ANALYZE");
            double generated = (System.nanoTime() - generating) / 1e9;

            Waits loaded;
            double aRate;
            try (BenchNmc nmc = BenchNmc.start(context, "fairness", engine)) {
                Lifecycles lifecycles = new Lifecycles(context.postgres(), db);
                awaitDraining(lifecycles, a, backlog); // A's first rounds warm the JVM up
                long aBefore = sentOrLater(context, db, a);
                Instant from = Instant.now();
                loaded = submitAndWait(context, nmc, db, b);
                aRate = (sentOrLater(context, db, a) - aBefore)
                        / (Duration.between(from, Instant.now()).toNanos() / 1e9);
            }
            double maxRounds = max(loaded.rounds());
            result.add(Figure.of("B's longest wait, in claim rounds", maxRounds, "rounds")
                    .baseline(max(alone.rounds()), "the same submission to the idle engine, rounds")
                    .target("≤ " + (int) TARGET_ROUNDS + " rounds", maxRounds <= TARGET_ROUNDS)
                    .detail("bMedianRounds", Latencies.round(median(loaded.rounds())))
                    .detail("bMedianWaitSeconds", Latencies.round(median(loaded.seconds())))
                    .detail("bLongestWaitSeconds", Latencies.round(max(loaded.seconds())))
                    .detail("idleMedianWaitSeconds", Latencies.round(median(alone.seconds())))
                    .detail("idleLongestWaitSeconds", Latencies.round(max(alone.seconds())))
                    .detail("aBacklog", backlog)
                    .detail("aBacklogWrittenInSeconds", Latencies.round(generated))
                    .detail("aSendsPerSecondMeanwhile", Latencies.round(aRate))
                    .build());
            result.add(Figure.of("B's longest wait", max(loaded.seconds()), "s")
                    .baseline(max(alone.seconds()), "the same submission to the idle engine, s")
                    .build());
            result.note(String.format(
                    Locale.ROOT,
                    "A's backlog: %,d notifications, written in SQL in %.0f s"
                            + " (sealed with the server's Envelope); B submits %d through the API with 4 clients",
                    backlog,
                    generated,
                    B_COUNT));
            result.note("FairClaim gives each DV with due work an equal share of a round (" + BATCH_SIZE + " tokens,"
                    + " 2 DVs: " + BATCH_SIZE / 2 + " each), so " + B_COUNT + " of B need at least "
                    + (int) Math.ceil(B_COUNT / (BATCH_SIZE / 2.0)) + " rounds whatever the engine's speed; the median"
                    + " shows the typical wait");
        } finally {
            context.postgres().dropDatabase(db);
        }
    }

    /** Waits until the engine has done six rounds of A's backlog (warm, and B arrives in the middle of it). */
    private static void awaitDraining(Lifecycles lifecycles, String a, int backlog) throws InterruptedException {
        Instant deadline = Instant.now().plus(Duration.ofMinutes(2));
        while (lifecycles.statuses(List.of(a)).getOrDefault("aangenomen", 0L) > backlog - 6L * BATCH_SIZE) {
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException("the engine did not start on A's backlog within two minutes");
            }
            Thread.sleep(100);
        }
        Thread.sleep(1000);
    }

    private static long sentOrLater(BenchContext context, String db, String oin) {
        return context.postgres()
                .number(
                        db,
                        "SELECT count(*) FROM event e JOIN dienstverlener d ON d.id = e.dv_id"
                                + " WHERE d.oin = ? AND e.naar = 'in-verzending'",
                        oin);
    }

    /** Submits B's notifications as {@code oin}, waits until all are verzonden, and reads their waits. */
    private static Waits submitAndWait(BenchContext context, BenchNmc nmc, String db, String oin)
            throws InterruptedException {
        try (HttpLoad load = new HttpLoad()) {
            HttpLoad.Outcome submitted = load.closedLoop(
                    4,
                    Duration.ofMinutes(1),
                    B_COUNT,
                    new Requests(nmc.baseUrl()).single("fair-" + oin, List.of(context.token(oin))),
                    HttpLoad.Worth.status(202));
            if (submitted.ok() != B_COUNT) {
                throw new IllegalStateException(
                        "B's submission: " + submitted.ok() + " of " + B_COUNT + " got a 202: " + submitted.statuses());
            }
        }
        String waiting = "SELECT count(*) FROM notificatie n JOIN dienstverlener d ON d.id = n.dv_id"
                + " WHERE d.oin = ? AND n.status IN ('aangenomen', 'in-verzending')";
        Instant deadline = Instant.now().plus(Duration.ofMinutes(5));
        while (context.postgres().number(db, waiting, oin) > 0) {
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException("B's notifications were not all verzonden within five minutes");
            }
            Thread.sleep(100);
        }
        // Per notification of B: its wait, and how many sends (of any DV) started during it.
        List<String[]> rows = context.postgres().rows(db, """
                SELECT CAST(extract(epoch FROM v.tijdstip - a.tijdstip) AS text),
                       CAST((SELECT count(*) FROM event s
                              WHERE s.naar = 'in-verzending' AND s.tijdstip > a.tijdstip AND s.tijdstip <= v.tijdstip)
                            AS text)
                  FROM event a
                  JOIN event v ON v.notificatie = a.notificatie AND v.naar = 'verzonden'
                  JOIN dienstverlener d ON d.id = a.dv_id
                 WHERE d.oin = ? AND a.naar = 'aangenomen'
                """, oin);
        List<Double> seconds = new ArrayList<>();
        List<Double> rounds = new ArrayList<>();
        for (String[] row : rows) {
            seconds.add(Double.parseDouble(row[0]));
            rounds.add(Long.parseLong(row[1]) / (double) BATCH_SIZE);
        }
        return new Waits(seconds, rounds);
    }

    private static double max(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).max().orElse(0);
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        return sorted.isEmpty() ? 0 : sorted.get(sorted.size() / 2);
    }
}
