package nl.overheid.moz.nmc.register;

import java.time.Duration;
import java.util.Set;
import java.util.UUID;

/**
 * A DV as the register knows it: the caller of every DV API call, resolved from the token's OIN.
 *
 * @param berichttypen       the message types this DV may send
 * @param quotaPerMinute     acceptances per minute; more are refused until the minute has passed
 * @param maxCursorAge       a feed cursor not used for longer than this is gone
 * @param profielNaam        the DV's name at the Profielservice, which its scoped contact data name
 * @param identificatieTypen the identifier types it may use in the centralised regime ({@code KVK}, {@code RSIN},
 *                           {@code BSN}: the Profielservice's spellings)
 */
public record Dienstverlener(
        UUID id,
        String oin,
        String naam,
        Set<String> berichttypen,
        int quotaPerMinute,
        Duration maxCursorAge,
        String profielNaam,
        Set<String> identificatieTypen) {}
