package nl.overheid.moz.nmc.simulator;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The Profielservice simulator's parties: KVK number → e-mail preference, in memory. A registered number either
 * has an address or is known without an e-mail preference; any other number is an unknown party. Starts with
 * the dev data of {@link ProfielserviceSimulator}; {@link #reset()} restores it. Thread-safe.
 */
final class ContactRegistry {

    /** The contract's {@code identificerendNummer} pattern ({@code ^[0-9]{8}$}); {@code \d} would allow other digits. */
    private static final Pattern KVK = Pattern.compile("[0-9]{8}");
    /** The contract's response declares {@code maxLength: 254}. */
    private static final int MAX_EMAIL_LENGTH = 254;

    /** What a lookup finds. */
    sealed interface Lookup {
    }

    record Address(String emailadres) implements Lookup {
    }

    record NoPreference() implements Lookup {
    }

    record UnknownParty() implements Lookup {
    }

    private final Map<String, Lookup> parties = new ConcurrentHashMap<>();

    ContactRegistry() {
        reset();
    }

    Lookup lookup(String kvk) {
        return parties.getOrDefault(kvk, new UnknownParty());
    }

    /**
     * @throws IllegalArgumentException when the number is not 8 digits or the address not a valid e-mail address
     *                                  of at most 254 characters (the message names neither value)
     */
    void register(String kvk, String emailadres) {
        requireKvk(kvk);
        if (emailadres == null || emailadres.length() > MAX_EMAIL_LENGTH
                || !ContractSchema.Format.EMAIL.accepts(emailadres)) {
            throw new IllegalArgumentException(
                    "emailadres must be an e-mail address of at most " + MAX_EMAIL_LENGTH + " characters (format email)");
        }
        parties.put(kvk, new Address(emailadres));
    }

    void registerWithoutPreference(String kvk) {
        requireKvk(kvk);
        parties.put(kvk, new NoPreference());
    }

    void reset() {
        parties.clear();
        parties.put(ProfielserviceSimulator.KVK_DELIVERED, new Address(ProfielserviceSimulator.DEV_EMAILADRES));
        parties.put(ProfielserviceSimulator.KVK_PERM_FAIL, new Address(NotifyNlSimulator.PERM_FAIL_ADDRESS));
        parties.put(ProfielserviceSimulator.KVK_TEMP_FAIL, new Address(NotifyNlSimulator.TEMP_FAIL_ADDRESS));
        parties.put(ProfielserviceSimulator.KVK_NO_PREFERENCE, new NoPreference());
    }

    private static void requireKvk(String kvk) {
        if (kvk == null || !KVK.matcher(kvk).matches()) {
            throw new IllegalArgumentException("kvk must be 8 digits (the contract's identificerendNummer pattern)");
        }
    }
}
