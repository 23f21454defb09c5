package nl.overheid.moz.nmc.sending;

import java.util.UUID;

/**
 * The Profielservice's contactgegeven an attempt went to: its id and the address it had then, sealed together on the
 * attempt for the invalid-address report. The Profielservice changes an address in place (same id), so the report
 * deletes the id only while it still holds the address that bounced. Attempts sent before the address was kept
 * carry the id alone ({@code address} null).
 */
record SentContact(UUID id, String address) {

    /** The sealed text: the id, a line feed (never in an id or a valid address), the address. */
    String encode() {
        return id + "\n" + address;
    }

    static SentContact decode(String sealed) {
        int separator = sealed.indexOf('\n');
        return separator < 0
                ? new SentContact(UUID.fromString(sealed), null)
                : new SentContact(UUID.fromString(sealed.substring(0, separator)), sealed.substring(separator + 1));
    }

    /** Whether the Profielservice's current value is still the address that bounced (domains are case-insensitive). */
    boolean stillHolds(String current) {
        return address == null || address.equalsIgnoreCase(current);
    }
}
