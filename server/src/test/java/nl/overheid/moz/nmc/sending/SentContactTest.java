package nl.overheid.moz.nmc.sending;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class SentContactTest {

    private static final UUID ID = UUID.fromString("0190d7a2-7b1c-7c3e-9f00-0123456789ab");
    private static final Instant UPDATED = Instant.parse("2026-11-30T09:15:00.123456Z");

    @Test
    void theIdAndTheMomentSurviveTheSealedTextAndNoAddressIsInIt() {
        SentContact sent = new SentContact(ID, UPDATED);

        assertThat(SentContact.decode(sent.encode())).isEqualTo(sent);
        assertThat(sent.unchangedAt(UPDATED)).isTrue();
        assertThat(sent.unchangedAt(UPDATED.plusMillis(1)))
                .as("changed in place since")
                .isFalse();
        assertThat(sent.unchangedAt(null)).isFalse();
    }

    @Test
    void aMomentTheAnswerLackedOrThatDoesNotReadIsNeverTakenAsUnchanged() {
        assertThat(SentContact.sentTo(ID, null).unchangedAt(null)).isFalse();
        assertThat(SentContact.sentTo(ID, null).unchangedAt(UPDATED)).isFalse();
        assertThat(SentContact.decode(ID + "\ngeen-moment").unchangedAt(UPDATED))
                .isFalse();
        assertThat(SentContact.decode(SentContact.sentTo(ID, UPDATED).encode()).unchangedAt(UPDATED))
                .isTrue();
    }

    @Test
    void anAttemptSentBeforeTheMomentWasKeptCarriesTheIdAloneAndIsDeletedAsBefore() {
        SentContact legacy = SentContact.decode(ID.toString());

        assertThat(legacy.id()).isEqualTo(ID);
        assertThat(legacy.lastUpdated()).isNull();
        assertThat(legacy.unchangedAt(UPDATED)).isTrue();
        assertThat(new SentContact(ID, null).encode()).isEqualTo(ID.toString());
    }
}
