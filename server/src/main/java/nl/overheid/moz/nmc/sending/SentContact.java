package nl.overheid.moz.nmc.sending;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.UUID;

/**
 * The Profielservice's contactgegeven an attempt went to: its id and its {@code lastUpdated} then, sealed together on
 * the attempt for the invalid-address report. The Profielservice changes an address in place (the same id, a new
 * {@code lastUpdated}: its entity's {@code @PreUpdate}) and its delete checks no value, so the report deletes the id
 * only while the entry is unchanged. The address itself is never stored (seed: "opgehaald en nooit opgeslagen").
 * Attempts sent before the moment was kept carry the id alone ({@code lastUpdated} null).
 */
record SentContact(UUID id, Instant lastUpdated) {

    /**
     * What the send keeps of the entry it used. An answer without {@code lastUpdated} (the contract requires it) keeps
     * the epoch, which no entry matches: the report asks and keeps the entry, never deleting blind.
     */
    static SentContact sentTo(UUID id, Instant lastUpdated) {
        return new SentContact(id, lastUpdated != null ? lastUpdated : Instant.EPOCH);
    }

    /** The sealed text: the id, and after a line feed the moment. */
    String encode() {
        return lastUpdated == null ? id.toString() : id + "\n" + lastUpdated;
    }

    static SentContact decode(String sealed) {
        int separator = sealed.indexOf('\n');
        if (separator < 0) {
            return new SentContact(UUID.fromString(sealed), null);
        }
        UUID id = UUID.fromString(sealed.substring(0, separator));
        try {
            return new SentContact(id, Instant.parse(sealed.substring(separator + 1)));
        } catch (DateTimeParseException notAMoment) {
            return new SentContact(id, Instant.EPOCH); // asked, never deleted blind
        }
    }

    /** Whether the entry is still as it was when the attempt was sent (unknown then: as before, yes). */
    boolean unchangedAt(Instant current) {
        return lastUpdated == null || lastUpdated.equals(current);
    }
}
