package nl.overheid.moz.nmc.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The duty runner keeps every duty on its own schedule: a duty that hangs (a management channel that drips, a lock
 * that is not given up) is interrupted at its deadline and reported, never runs twice beside itself, and never
 * holds the others back.
 */
class DutyRunnerTest {

    /** Rounds per duty name, completed or not, as the metrics would count them. */
    private final Map<String, AtomicInteger> completed = new ConcurrentHashMap<>();

    private final Map<String, AtomicInteger> overran = new ConcurrentHashMap<>();

    private final EngineEvents events = new EngineEvents() {
        @Override
        public void dutyRan(String duty, Duration took, boolean done) {
            (done ? completed : overran)
                    .computeIfAbsent(duty, d -> new AtomicInteger())
                    .incrementAndGet();
        }
    };

    @Test
    void aHangingDutyIsInterruptedAtItsDeadlineWhileTheOthersKeepTheirPace() throws Exception {
        AtomicInteger interrupted = new AtomicInteger();
        AtomicInteger quickRounds = new AtomicInteger();
        CountDownLatch enoughQuickRounds = new CountDownLatch(10);
        Duty hanging = duty("hanging", () -> {
            try {
                Thread.sleep(Duration.ofMinutes(10));
            } catch (InterruptedException e) {
                interrupted.incrementAndGet();
                Thread.currentThread().interrupt();
            }
            return 0;
        });
        Duty quick = duty("quick", () -> {
            quickRounds.incrementAndGet();
            enoughQuickRounds.countDown();
            return 1;
        });
        try (DutyRunner runner =
                new DutyRunner(List.of(hanging, quick), Duration.ofMillis(20), Duration.ofMillis(200), events)) {
            runner.start();
            assertThat(enoughQuickRounds.await(30, TimeUnit.SECONDS))
                    .as("the quick duty runs its rounds while the other hangs")
                    .isTrue();
            waitUntil(() -> interrupted.get() >= 1 && overran.containsKey("hanging"));
        }
        assertThat(overran.get("hanging")).as("the overrun is reported").isNotNull();
        assertThat(completed.get("quick")).hasPositiveValue();
        assertThat(completed).doesNotContainKey("hanging");
    }

    @Test
    void aRoundThatIgnoresItsInterruptIsNeverJoinedByASecondOne() throws Exception {
        AtomicInteger running = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        AtomicInteger rounds = new AtomicInteger();
        CountDownLatch release = new CountDownLatch(1);
        Duty stubborn = duty("stubborn", () -> {
            mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
            rounds.incrementAndGet();
            boolean released = false;
            while (!released) {
                try {
                    released = release.await(5, TimeUnit.SECONDS);
                } catch (InterruptedException ignoredOnPurpose) {
                    // a duty deaf to interrupts: the runner must still not start a second round beside it
                }
            }
            running.decrementAndGet();
            return 0;
        });
        try (DutyRunner runner =
                new DutyRunner(List.of(stubborn), Duration.ofMillis(10), Duration.ofMillis(50), events)) {
            runner.start();
            waitUntil(() -> overran.containsKey("stubborn"));
            Thread.sleep(300); // many intervals and deadlines pass while the first round still runs
            assertThat(rounds).hasValue(1);
            release.countDown();
            waitUntil(() -> rounds.get() >= 2);
        }
        assertThat(mostAtOnce).hasValue(1);
    }

    @Test
    void aFailingDutyIsReportedAndTriedAgain() throws Exception {
        AtomicInteger tries = new AtomicInteger();
        Duty failing = duty("failing", () -> {
            tries.incrementAndGet();
            throw new IllegalStateException("the database is away");
        });
        try (DutyRunner runner =
                new DutyRunner(List.of(failing), Duration.ofMillis(10), Duration.ofSeconds(5), events)) {
            runner.start();
            waitUntil(() -> tries.get() >= 3);
        }
        assertThat(overran.get("failing")).hasValueGreaterThanOrEqualTo(2);
        assertThat(completed).doesNotContainKey("failing");
    }

    private static Duty duty(String name, java.util.function.IntSupplier round) {
        return new Duty() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public int runOnce() {
                return round.getAsInt();
            }
        };
    }

    /** Polls a condition with a generous bound: the bound only ends a broken run, it measures nothing. */
    private static void waitUntil(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition within 30 s").isLessThan(end);
            Thread.sleep(5);
        }
    }
}
