package nl.overheid.moz.nmc.bench;

/** One of the harness's benchmarks: runs on its own database and reports its figures. */
interface Benchmark {

    /** The name {@code scripts/bench} selects it by. */
    String name();

    /** One sentence: what it measures and beside which baseline. */
    String measures();

    /** Runs it; throws when it cannot finish (the harness records the failure and goes on). */
    void run(BenchContext context, BenchmarkResult result) throws Exception;
}
