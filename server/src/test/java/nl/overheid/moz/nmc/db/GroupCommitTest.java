package nl.overheid.moz.nmc.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The grouping itself, without a database: a lone request is written at once by its own thread; requests that
 * arrive while a group is written go together in the next, at most {@code maxSize}; a failure reaches only its
 * own group; a member is answered before the group after its own is written.
 */
class GroupCommitTest {

    private final List<List<String>> written = new CopyOnWriteArrayList<>();

    private GroupCommit<String, String, String> groups(int maxSize, CountDownLatch hold) {
        return new GroupCommit<>(maxSize, group -> {
            List<String> requests =
                    group.stream().map(GroupCommit.Member::request).toList();
            written.add(requests);
            if (requests.contains("hold")) {
                await(hold);
            }
            for (GroupCommit.Member<String, String> member : group) {
                if (member.request().startsWith("fail")) {
                    member.fail(new IllegalStateException(member.request()));
                } else if (!member.request().startsWith("forget")) {
                    member.complete("ok:" + member.request() + ":" + group.size());
                }
            }
        });
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void eventually(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("in time").isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    @Test
    void aLoneRequestIsWrittenAtOnceByItsOwnThreadInAGroupOfOne() {
        Thread caller = Thread.currentThread();
        List<Thread> writers = new ArrayList<>();
        GroupCommit<String, String, String> groups = new GroupCommit<>(10, group -> {
            writers.add(Thread.currentThread());
            group.forEach(m -> m.complete("ok"));
        });

        assertThat(groups.submit("dv", "a")).isEqualTo("ok");
        assertThat(groups.submit("dv", "b")).isEqualTo("ok");
        assertThat(writers).containsExactly(caller, caller);
        assertThat(groups.waiting()).isZero();
    }

    @Test
    void requestsArrivingDuringAWriteGoTogetherInTheNextGroupsOfAtMostMaxSize() throws Exception {
        CountDownLatch hold = new CountDownLatch(1);
        GroupCommit<String, String, String> groups = groups(3, hold);
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<String> first = threads.submit(() -> groups.submit("dv", "hold"));
            eventually(() -> written.size() == 1);
            List<Future<String>> others = new ArrayList<>();
            for (int i = 1; i <= 5; i++) {
                String request = "r" + i;
                others.add(threads.submit(() -> groups.submit("dv", request)));
                int waiting = i;
                eventually(() -> groups.waiting() == waiting); // in this order
            }
            Future<String> otherKey = threads.submit(() -> groups.submit("other dv", "x"));
            assertThat(otherKey.get(10, TimeUnit.SECONDS))
                    .as("another key does not wait for this one's write")
                    .isEqualTo("ok:x:1");
            assertThat(written).hasSize(2);

            hold.countDown();
            assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("ok:hold:1");
            for (int i = 0; i < 5; i++) {
                assertThat(others.get(i).get(10, TimeUnit.SECONDS)).isEqualTo("ok:r" + (i + 1) + ":" + (i < 3 ? 3 : 2));
            }
        }
        assertThat(written)
                .containsExactly(List.of("hold"), List.of("x"), List.of("r1", "r2", "r3"), List.of("r4", "r5"));
        assertThat(groups.waiting()).isZero();
    }

    @Test
    void aMemberIsAnsweredBeforeTheGroupAfterItsOwnIsWritten() throws Exception {
        CountDownLatch holdFirst = new CountDownLatch(1);
        CountDownLatch holdThird = new CountDownLatch(1);
        GroupCommit<String, String, String> groups = new GroupCommit<>(1, group -> {
            written.add(List.of(group.getFirst().request()));
            await(
                    group.getFirst().request().equals("a")
                            ? holdFirst
                            : group.getFirst().request().equals("c") ? holdThird : new CountDownLatch(0));
            group.getFirst().complete("ok");
        });
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<String> a = threads.submit(() -> groups.submit("dv", "a"));
            eventually(() -> written.size() == 1);
            Future<String> b = threads.submit(() -> groups.submit("dv", "b"));
            eventually(() -> groups.waiting() == 1);
            Future<String> c = threads.submit(() -> groups.submit("dv", "c"));
            eventually(() -> groups.waiting() == 2);
            holdFirst.countDown();
            assertThat(a.get(10, TimeUnit.SECONDS)).isEqualTo("ok");
            assertThat(b.get(10, TimeUnit.SECONDS))
                    .as("b does not wait for c's write")
                    .isEqualTo("ok");
            assertThat(c.isDone()).isFalse();
            holdThird.countDown();
            assertThat(c.get(10, TimeUnit.SECONDS)).isEqualTo("ok");
        }
    }

    @Test
    void aFailureReachesItsOwnMemberOnlyAndAnUnansweredMemberFailsInsteadOfWaiting() throws Exception {
        CountDownLatch hold = new CountDownLatch(1);
        GroupCommit<String, String, String> groups = groups(10, hold);
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<String> first = threads.submit(() -> groups.submit("dv", "hold"));
            eventually(() -> written.size() == 1);
            Future<String> ok = threads.submit(() -> groups.submit("dv", "ok"));
            eventually(() -> groups.waiting() == 1);
            Future<String> failing = threads.submit(() -> groups.submit("dv", "fail-1"));
            eventually(() -> groups.waiting() == 2);
            Future<String> forgotten = threads.submit(() -> groups.submit("dv", "forget-1"));
            eventually(() -> groups.waiting() == 3);
            hold.countDown();
            assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("ok:hold:1");
            assertThat(ok.get(10, TimeUnit.SECONDS)).isEqualTo("ok:ok:3");
            assertThatThrownBy(() -> failing.get(10, TimeUnit.SECONDS)).hasRootCauseMessage("fail-1");
            assertThatThrownBy(() -> forgotten.get(10, TimeUnit.SECONDS))
                    .hasRootCauseMessage("the group's write gave this member no outcome");
        }
        // a writer that throws fails its whole group, and the line goes on
        GroupCommit<String, String, String> throwing = new GroupCommit<>(10, group -> {
            throw new IllegalArgumentException("down");
        });
        assertThatThrownBy(() -> throwing.submit("dv", "a")).hasMessage("down");
        assertThatThrownBy(() -> throwing.submit("dv", "b")).hasMessage("down");
    }
}
