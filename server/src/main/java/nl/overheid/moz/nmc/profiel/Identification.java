package nl.overheid.moz.nmc.profiel;

import java.util.Optional;

/**
 * How a business (or a person) is identified at the Profielservice: a type and a number (the real contract's
 * {@code IdentificatieType} and {@code identificatieNummer}). The number is personal data: it is kept only
 * encrypted, never logged, never echoed in a problem, and {@link #toString()} leaves it out.
 */
public record Identification(Type type, String number) {

    /** The identifier types the Profielservice takes; their names are the contract's spellings. */
    public enum Type {
        /** KVK-nummer of the Kamer van Koophandel: 8 digits. */
        KVK,
        /** RSIN of a legal entity: 9 digits passing the elfproef. */
        RSIN,
        /** Burgerservicenummer: 9 digits passing the elfproef; its use needs a legal basis (the register says). */
        BSN;

        /** The type of this spelling, if it is one. */
        public static Optional<Type> of(String value) {
            for (Type type : values()) {
                if (type.name().equals(value)) {
                    return Optional.of(type);
                }
            }
            return Optional.empty();
        }
    }

    /** Why a number is not a number of its type; a code for the problem, never the number. */
    public enum Invalid {
        /** Not 8 (KVK) or 9 (RSIN, BSN) digits. */
        LENGTH,
        /** Nine digits that do not pass the elfproef. */
        ELFPROEF
    }

    /**
     * Checks {@code number} against its type: KVK exactly 8 digits; RSIN and BSN exactly 9 digits passing the
     * elfproef (weights 9..2 and -1 on the last digit; the sum a positive multiple of 11).
     */
    public static Optional<Invalid> check(Type type, String number) {
        int length = type == Type.KVK ? 8 : 9;
        if (number == null || number.length() != length || !number.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return Optional.of(Invalid.LENGTH);
        }
        if (type == Type.KVK) {
            return Optional.empty();
        }
        int sum = 0;
        for (int i = 0; i < 9; i++) {
            int weight = i == 8 ? -1 : 9 - i;
            sum += (number.charAt(i) - '0') * weight;
        }
        return sum > 0 && sum % 11 == 0 ? Optional.empty() : Optional.of(Invalid.ELFPROEF);
    }

    /** The form the recipient is encrypted in: {@code TYPE:number}. */
    public String sealed() {
        return type.name() + ":" + number;
    }

    /**
     * Reads what {@link #sealed()} wrote; a bare number is a KVK number (notifications accepted before the
     * identifier types existed).
     */
    public static Identification unsealed(String recipient) {
        int colon = recipient.indexOf(':');
        if (colon < 0) {
            return new Identification(Type.KVK, recipient);
        }
        Type type = Type.of(recipient.substring(0, colon))
                .orElseThrow(() -> new IllegalArgumentException("not a sealed identification"));
        return new Identification(type, recipient.substring(colon + 1));
    }

    @Override
    public String toString() {
        return "Identification[" + type + "]";
    }
}
