package nl.overheid.moz.nmc.bench;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;

/**
 * Benchmark 4, budget accuracy: the send budget set to B per minute, a backlog of 3 B accepted at once, and
 * the sends counted where they arrive (the instant NotifyNL, by its clock) per one-minute window (the
 * budget's windows are calendar minutes). Two windows are judged: the one the backlog arrives in (started
 * at least {@value #MIN_SECONDS_LEFT} s before its end) and the next. Never above B, at least 95% of B used.
 */
final class BudgetBench implements Benchmark {

    static final int B = 120;
    static final int MIN_SECONDS_LEFT = 20;
    private static final double TARGET_USED = 0.95;

    @Override
    public String name() {
        return "budget";
    }

    @Override
    public String measures() {
        return "sends per one-minute window counted at NotifyNL by arrival time, with the send budget at B = " + B
                + "/minute (notifynl.services.standaard.per-minute " + B
                + ", no reconciliation share) and a backlog of " + (3 * B)
                + "; beside B itself";
    }

    @Override
    public void run(BenchContext context, BenchmarkResult result) throws Exception {
        String db = context.postgres().freshDatabase("bench_budget");
        BenchNmc.Options options = BenchNmc.Options.on(db)
                .engine(Duration.ofMillis(EngineBench.RECEIPT_DELAY_MS))
                .set("notifynl.services.standaard.per-minute", B)
                .set("engine.reconcile-share", 0)
                .set("engine.poll-interval", "PT0.1S");
        try (BenchNmc nmc = BenchNmc.start(context, "budget", options);
                HttpLoad load = new HttpLoad()) {
            List<String> tokens = IntStream.rangeClosed(1, 2)
                    .mapToObj(i -> context.token(BenchContext.nmcOin(i)))
                    .toList();
            Instant now = Instant.now();
            Instant window = now.truncatedTo(ChronoUnit.MINUTES);
            if (Duration.between(now, window.plus(Duration.ofMinutes(1))).toSeconds() < MIN_SECONDS_LEFT) {
                window = window.plus(Duration.ofMinutes(1));
                Thread.sleep(Duration.between(Instant.now(), window).toMillis() + 200);
            }
            HttpLoad.Outcome accepted = load.closedLoop(
                    8,
                    Duration.ofMinutes(2),
                    3L * B,
                    new Requests(nmc.baseUrl()).single("budget", tokens),
                    HttpLoad.Worth.status(202));
            if (accepted.ok() != 3L * B) {
                throw new IllegalStateException("accepting the backlog: " + accepted.ok() + " of " + 3 * B
                        + " got a 202: " + accepted.statuses());
            }
            Instant end = window.plus(Duration.ofMinutes(2));
            Thread.sleep(Math.max(0, Duration.between(Instant.now(), end).toMillis() + 2000));

            Map<Instant, Integer> perWindow = new TreeMap<>();
            List<Instant> arrivals = nmc.parties().sendArrivals();
            for (Instant arrival : arrivals) {
                perWindow.merge(arrival.truncatedTo(ChronoUnit.MINUTES), 1, Integer::sum);
            }
            int first = perWindow.getOrDefault(window, 0);
            int second = perWindow.getOrDefault(window.plus(Duration.ofMinutes(1)), 0);
            int max = perWindow.values().stream()
                    .mapToInt(Integer::intValue)
                    .max()
                    .orElse(0);
            int least = Math.min(first, second);
            Map<String, Integer> windows = new TreeMap<>();
            perWindow.forEach((start, count) -> windows.put(start.toString(), count));
            result.add(Figure.of("most sends in one window", max, "sends")
                    .baseline(B, "B, the budget per minute")
                    .target("≤ B", max <= B)
                    .detail("sendsPerWindow", windows)
                    .build());
            result.add(Figure.of("fewest sends in the two judged windows", least, "sends")
                    .baseline(B, "B, the budget per minute")
                    .target("≥ 95% of B", least >= TARGET_USED * B)
                    .detail("firstWindow", window.toString())
                    .detail("firstWindowSends", first)
                    .detail("secondWindowSends", second)
                    .build());
            result.add(Figure.of("most sends in any 60 seconds (informative)", slidingMax(arrivals), "sends")
                    .baseline(B, "B, the budget per minute")
                    .build());
            result.note("the budget's windows are calendar minutes (SendBudget truncates to the minute), so a"
                    + " window's B tokens go in its first seconds and two windows' tokens can meet across a boundary;"
                    + " NotifyNL (GOV.UK Notify's exceeded_rate_limit) counts over a sliding interval, so it sees"
                    + " the sliding figure, up to twice B");
        } finally {
            context.postgres().dropDatabase(db);
        }
    }

    /** The most arrivals within any 60 seconds. */
    static int slidingMax(List<Instant> arrivals) {
        List<Instant> sorted = arrivals.stream().sorted().toList();
        int most = 0;
        int from = 0;
        for (int to = 0; to < sorted.size(); to++) {
            while (Duration.between(sorted.get(from), sorted.get(to)).compareTo(Duration.ofSeconds(60)) >= 0) {
                from++;
            }
            most = Math.max(most, to - from + 1);
        }
        return most;
    }
}
