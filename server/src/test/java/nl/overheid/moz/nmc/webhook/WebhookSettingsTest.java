package nl.overheid.moz.nmc.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class WebhookSettingsTest {

    @Test
    void retryWaitsDoubleUpToThePauseAndPausesUpToADay() {
        WebhookSettings settings = WebhookSettings.defaults()
                .withRetryBase(Duration.ofSeconds(10))
                .withPauseBase(Duration.ofMinutes(1))
                .withPauseMax(Duration.ofDays(1));
        assertThat(settings.retryAfter(1)).isEqualTo(Duration.ofSeconds(10));
        assertThat(settings.retryAfter(3)).isEqualTo(Duration.ofSeconds(40));
        assertThat(settings.retryAfter(10)).isEqualTo(Duration.ofMinutes(1));
        assertThat(settings.pause(1)).isEqualTo(Duration.ofMinutes(1));
        assertThat(settings.pause(2)).isEqualTo(Duration.ofMinutes(2));
        assertThat(settings.pause(50)).isEqualTo(Duration.ofDays(1));
    }
}
