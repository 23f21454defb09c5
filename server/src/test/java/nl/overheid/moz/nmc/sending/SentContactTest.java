package nl.overheid.moz.nmc.sending;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import org.junit.jupiter.api.Test;

class SentContactTest {

    private static final UUID ID = UUID.fromString("0190d7a2-7b1c-7c3e-9f00-0123456789ab");

    @Test
    void theIdAndTheAddressSurviveTheSealedText() {
        SentContact sent = new SentContact(ID, "Iemand@Example.nl");

        assertThat(SentContact.decode(sent.encode())).isEqualTo(sent);
        assertThat(sent.stillHolds("iemand@example.nl")).as("the same mailbox").isTrue();
        assertThat(sent.stillHolds("gecorrigeerd@example.nl")).isFalse();
    }

    @Test
    void anAttemptSentBeforeTheAddressWasKeptCarriesTheIdAloneAndIsDeletedAsBefore() {
        SentContact legacy = SentContact.decode(ID.toString());

        assertThat(legacy.id()).isEqualTo(ID);
        assertThat(legacy.address()).isNull();
        assertThat(legacy.stillHolds("wat@dan.ook")).isTrue();
    }
}
