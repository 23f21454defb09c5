package nl.overheid.moz.nmc.receipts;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Reconciliation asks after 1 h, 6 h and 24 h, then daily, until NotifyNL's retention ends (design §7.3). */
class ReconcileScheduleTest {

    private final Instant sent = Instant.parse("2026-12-01T09:00:00Z");
    private final ReconcileSchedule schedule = new ReconcileSchedule(
            ReconcileSchedule.DEFAULT_STEPS,
            ReconcileSchedule.DEFAULT_INTERVAL,
            ReconcileSchedule.DEFAULT_NOTIFY_RETENTION);

    @Test
    void theQueriesFollowTheStepsThenDailyUntilTheRetentionEnds() {
        List<Duration> asked = new ArrayList<>();
        Instant at = schedule.first(sent);
        while (true) {
            asked.add(Duration.between(sent, at));
            Optional<Instant> next = schedule.next(sent, at);
            if (next.isEmpty()) {
                break;
            }
            assertThat(next.get()).isAfter(at);
            at = next.get();
        }
        assertThat(asked)
                .containsExactly(
                        Duration.ofHours(1),
                        Duration.ofHours(6),
                        Duration.ofHours(24),
                        Duration.ofDays(2),
                        Duration.ofDays(3),
                        Duration.ofDays(4),
                        Duration.ofDays(5),
                        Duration.ofDays(6),
                        Duration.ofDays(7));
    }

    @Test
    void aQueryThatRanLateIsFollowedByTheNextStepNotByAPastOne() {
        assertThat(schedule.next(sent, sent.plus(Duration.ofHours(7)))).contains(sent.plus(Duration.ofHours(24)));
        assertThat(schedule.next(sent, sent.plus(Duration.ofHours(30)))).contains(sent.plus(Duration.ofDays(2)));
    }

    @Test
    void theLastQueryIsCappedAtTheEndOfTheRetention() {
        ReconcileSchedule shortRetention =
                new ReconcileSchedule(ReconcileSchedule.DEFAULT_STEPS, Duration.ofDays(1), Duration.ofHours(30));
        assertThat(shortRetention.next(sent, sent.plus(Duration.ofHours(24))))
                .contains(sent.plus(Duration.ofHours(30)));
        assertThat(shortRetention.next(sent, sent.plus(Duration.ofHours(30)))).isEmpty();
    }

    @Test
    void aScheduleWithoutStepsOrIntervalIsRefused() {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> new ReconcileSchedule(List.of(), Duration.ofDays(1), Duration.ofDays(7)))
                .isInstanceOf(IllegalArgumentException.class);
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> new ReconcileSchedule(List.of(Duration.ofHours(1)), Duration.ZERO, Duration.ofDays(7)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
