package nl.overheid.moz.nmc.register;

import java.time.Duration;
import java.util.Set;
import java.util.UUID;

/**
 * A DV as the register knows it: the caller of every DV API call, resolved from the token's OIN.
 *
 * @param berichttypen the message types this DV may send
 * @param quotumPerMinuut acceptances per minute; more are refused until the minute has passed
 * @param maxCursorleeftijd a feed cursor not used for longer than this is gone
 */
public record Dienstverlener(
        UUID id, String oin, String naam, Set<String> berichttypen, int quotaPerMinute, Duration maxCursorleeftijd) {}
