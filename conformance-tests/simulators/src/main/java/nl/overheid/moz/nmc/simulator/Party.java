package nl.overheid.moz.nmc.simulator;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * A party (partij) of the {@link ProfielserviceSimulator}: its identifications, contactgegevens and voorkeuren,
 * as the real Profielservice stores them. Built with a small fluent builder; a modifier such as
 * {@link Builder#verified(boolean)} applies to the entry added last:
 * <pre>{@code
 * sim.register(Party.kvk("12345678")
 *         .email("meldingen@voorbeeld.nl", Scope.of("Gemeente A", "Meldingen")).verified(false)
 *         .email("info@voorbeeld.nl").asDefault().lastUpdated(Instant.parse("2026-03-01T09:00:00Z"))
 *         .phone("0612345678")
 *         .voorkeur(Party.VoorkeurType.WebsiteTaal, "nl"));
 * }</pre>
 *
 * <p>The builder keeps the invariants the real service keeps, so a test cannot build a profile the service
 * could never answer: at most one active default per contact type (its database index
 * {@code contactgegeven_default_per_type}), no two active entries of one type with the same value (its
 * {@code uk_contactgegeven_dedup}; e-mail values compared case-insensitively), and an active party has at
 * least one active contactgegeven or voorkeur (the service soft-deletes a party whose last child goes). Like
 * the service, it stores e-mail addresses lower-cased. It does <em>not</em> check the elfproef or a number's
 * length: neither does the service's {@code POST /partij}.
 *
 * <p>Ids are random unless set; {@link #toString()} and the entries' {@code toString()} name no number and no
 * value.
 */
public final class Party {

    /** The contract's {@code IdentificatieType}. */
    public enum IdentificatieType {
        BSN,
        KVK,
        RSIN
    }

    /** The contract's {@code ContactType}; the constants are spelled as on the wire. */
    public enum ContactType {
        Email,
        Telefoonnummer,
        ApplicatieId
    }

    /** The contract's {@code VoorkeurType}; the constants are spelled as on the wire. */
    public enum VoorkeurType {
        WebsiteTaal,
        MagGebeldWorden,
        WebsiteThema,
        Aanhef,
        OntvangViaBerichtenbox
    }

    /** {@code createdAt} and {@code lastUpdated} of an entry that does not set them. */
    public static final Instant DEFAULT_TIMESTAMP = Instant.parse("2026-01-05T09:00:00Z");

    /** The contract's pattern on every meaningful text field: not blank, no CR or LF. */
    private static final Pattern MEANINGFUL = Pattern.compile("[^\\r\\n]*\\S[^\\r\\n]*");

    private final UUID partijId;
    private final List<Identification> identifications;
    private final List<Contact> contacts;
    private final List<Voorkeur> voorkeuren;
    private final boolean deleted;

    private Party(
            UUID partijId,
            List<Identification> identifications,
            List<Contact> contacts,
            List<Voorkeur> voorkeuren,
            boolean deleted) {
        this.partijId = partijId;
        this.identifications = List.copyOf(identifications);
        this.contacts = List.copyOf(contacts);
        this.voorkeuren = List.copyOf(voorkeuren);
        this.deleted = deleted;
    }

    /** A party identified by a KVK number (8 digits in practice; the service takes any non-blank text). */
    public static Builder kvk(String nummer) {
        return of(IdentificatieType.KVK, nummer);
    }

    /** A party identified by an RSIN (9 digits passing the elfproef in practice; not checked, as by the service). */
    public static Builder rsin(String nummer) {
        return of(IdentificatieType.RSIN, nummer);
    }

    /** A party identified by a BSN (9 digits passing the elfproef in practice; not checked, as by the service). */
    public static Builder bsn(String nummer) {
        return of(IdentificatieType.BSN, nummer);
    }

    /** @throws IllegalArgumentException when the number is blank or has a line break (the message names no value) */
    public static Builder of(IdentificatieType type, String nummer) {
        return new Builder().identification(type, nummer);
    }

    public UUID partijId() {
        return partijId;
    }

    /** The first is the one the party was built with; more may follow ({@link Builder#identification}). */
    public List<Identification> identifications() {
        return identifications;
    }

    /** In the order they were added: the order the simulator answers them in (unless shuffled). */
    public List<Contact> contacts() {
        return contacts;
    }

    public List<Voorkeur> voorkeuren() {
        return voorkeuren;
    }

    /** Soft-deleted at registration: every lookup answers the 404 of an unknown party. */
    public boolean deleted() {
        return deleted;
    }

    /** The contactgegeven with this value (e-mail addresses compared case-insensitively). */
    public Contact contact(String waarde) {
        return contacts.stream()
                .filter(contact -> contact.sameValue(waarde))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no contactgegeven with that value"));
    }

    @Override
    public String toString() {
        return "Party[partijId=" + partijId + ", identifications=" + identifications.size() + ", contacts="
                + contacts.size() + ", voorkeuren=" + voorkeuren.size() + (deleted ? ", deleted" : "") + "]";
    }

    static boolean meaningful(String text) {
        return text != null && MEANINGFUL.matcher(text).matches();
    }

    /** One identification of a party. {@link #toString()} leaves the number out. */
    public record Identification(IdentificatieType type, String nummer) {

        public Identification {
            Objects.requireNonNull(type, "type");
            if (!meaningful(nummer)) {
                throw new IllegalArgumentException("an identificatieNummer must be non-blank without line breaks");
            }
        }

        @Override
        public String toString() {
            return "Identification[" + type + "]";
        }
    }

    /**
     * One contactgegeven ({@code ContactgegevenResponse}). {@link #toString()} leaves the value out.
     *
     * @param verified {@code isGeverifieerd}
     * @param isDefault {@code isDefault}
     * @param scopes   empty for an unscoped entry, which every lookup answers
     */
    public record Contact(
            UUID id,
            ContactType type,
            String waarde,
            boolean verified,
            boolean isDefault,
            Instant createdAt,
            Instant lastUpdated,
            List<Scope> scopes) {

        public Contact {
            scopes = List.copyOf(scopes);
        }

        boolean sameValue(String other) {
            return type == ContactType.Email ? waarde.equalsIgnoreCase(other) : waarde.equals(other);
        }

        @Override
        public String toString() {
            return "Contact[id=" + id + ", type=" + type + ", verified=" + verified + ", isDefault=" + isDefault
                    + ", lastUpdated=" + lastUpdated + ", scopes=" + scopes + "]";
        }
    }

    /** One voorkeur ({@code VoorkeurResponse}). */
    public record Voorkeur(
            UUID id, VoorkeurType type, String waarde, Instant createdAt, Instant lastUpdated, List<Scope> scopes) {

        public Voorkeur {
            scopes = List.copyOf(scopes);
        }
    }

    /**
     * Builds a {@link Party}. Entries are added with {@link #email}, {@link #phone}, {@link #applicatieId},
     * {@link #contact} and {@link #voorkeur}; {@link #verified}, {@link #asDefault}, {@link #id},
     * {@link #createdAt} and {@link #lastUpdated} change the entry added last. Not thread-safe.
     */
    public static final class Builder {
        private final List<Identification> identifications = new ArrayList<>();
        private final List<MutableEntry> entries = new ArrayList<>();
        private UUID partijId;
        private boolean deleted;
        private String idSeed;

        private Builder() {}

        /** Another identification of the same party (the answer's {@code identificaties} lists them all). */
        public Builder identification(IdentificatieType type, String nummer) {
            identifications.add(new Identification(type, nummer));
            return this;
        }

        public Builder partijId(UUID partijId) {
            this.partijId = Objects.requireNonNull(partijId, "partijId");
            return this;
        }

        /** Soft-deletes the party: lookups answer 404 "Partij niet gevonden", as for an unknown number. */
        public Builder deleted() {
            this.deleted = true;
            return this;
        }

        /** An e-mail address, verified, not the default; without scopes it is unscoped. Stored lower-cased. */
        public Builder email(String address, Scope... scopes) {
            return contact(ContactType.Email, address, scopes);
        }

        public Builder phone(String number, Scope... scopes) {
            return contact(ContactType.Telefoonnummer, number, scopes);
        }

        public Builder applicatieId(String id, Scope... scopes) {
            return contact(ContactType.ApplicatieId, id, scopes);
        }

        /** A contactgegeven of any type: verified, not the default, {@link #DEFAULT_TIMESTAMP}. */
        public Builder contact(ContactType type, String waarde, Scope... scopes) {
            Objects.requireNonNull(type, "type");
            if (!meaningful(waarde)) {
                throw new IllegalArgumentException("a contactgegeven's waarde must be non-blank without line breaks");
            }
            String stored = type == ContactType.Email ? waarde.toLowerCase(Locale.ROOT) : waarde;
            entries.add(new MutableEntry(type, null, stored, scopesOf(scopes)));
            return this;
        }

        public Builder voorkeur(VoorkeurType type, String waarde, Scope... scopes) {
            Objects.requireNonNull(type, "type");
            if (!meaningful(waarde)) {
                throw new IllegalArgumentException("a voorkeur's waarde must be non-blank without line breaks");
            }
            entries.add(new MutableEntry(null, type, waarde, scopesOf(scopes)));
            return this;
        }

        /** {@code isGeverifieerd} of the contactgegeven added last (default true). */
        public Builder verified(boolean verified) {
            lastContact("verified").verified = verified;
            return this;
        }

        /** Makes the contactgegeven added last the default of its type ({@code isDefault: true}). */
        public Builder asDefault() {
            lastContact("asDefault").isDefault = true;
            return this;
        }

        /** The id of the entry added last. */
        public Builder id(UUID id) {
            last("id").id = Objects.requireNonNull(id, "id");
            return this;
        }

        public Builder createdAt(Instant createdAt) {
            last("createdAt").createdAt = Objects.requireNonNull(createdAt, "createdAt");
            return this;
        }

        /** {@code lastUpdated} of the entry added last: the choice rule's tie-breaker (latest wins). */
        public Builder lastUpdated(Instant lastUpdated) {
            last("lastUpdated").lastUpdated = Objects.requireNonNull(lastUpdated, "lastUpdated");
            return this;
        }

        /** Derives every id not set from {@code seed}, so the dev data keeps its ids across restarts. */
        Builder idSeed(String seed) {
            this.idSeed = seed;
            return this;
        }

        /**
         * @throws IllegalArgumentException when the party breaks an invariant of the real service (see
         *                                  {@link Party}); the message names no value
         */
        public Party build() {
            Set<String> activeDefaults = new HashSet<>();
            Set<String> values = new HashSet<>();
            List<Contact> contacts = new ArrayList<>();
            List<Voorkeur> voorkeuren = new ArrayList<>();
            for (int i = 0; i < entries.size(); i++) {
                MutableEntry entry = entries.get(i);
                UUID id = entry.id != null ? entry.id : id("entry/" + i);
                if (entry.contactType != null) {
                    if (entry.isDefault && !activeDefaults.add(entry.contactType.name())) {
                        throw new IllegalArgumentException("at most one default per contact type (" + entry.contactType
                                + "), as the service's index contactgegeven_default_per_type");
                    }
                    if (!values.add(entry.contactType + "/" + entry.waarde)) {
                        throw new IllegalArgumentException("two " + entry.contactType
                                + " entries with the same value, which the service's uk_contactgegeven_dedup refuses");
                    }
                    contacts.add(new Contact(
                            id,
                            entry.contactType,
                            entry.waarde,
                            entry.verified,
                            entry.isDefault,
                            entry.createdAt,
                            entry.lastUpdated,
                            entry.scopes));
                } else {
                    voorkeuren.add(new Voorkeur(
                            id, entry.voorkeurType, entry.waarde, entry.createdAt, entry.lastUpdated, entry.scopes));
                }
            }
            if (!deleted && contacts.isEmpty() && voorkeuren.isEmpty()) {
                throw new IllegalArgumentException("an active party needs a contactgegeven or a voorkeur: the service "
                        + "soft-deletes a party whose last one goes (build it .deleted() instead)");
            }
            if (identifications.stream()
                            .map(identification -> identification.type() + "/" + identification.nummer())
                            .distinct()
                            .count()
                    != identifications.size()) {
                throw new IllegalArgumentException("the same identification twice");
            }
            return new Party(
                    partijId != null ? partijId : id("partij"), identifications, contacts, voorkeuren, deleted);
        }

        private UUID id(String what) {
            return idSeed == null
                    ? UUID.randomUUID()
                    : UUID.nameUUIDFromBytes(
                            ("profielservice-sim/" + idSeed + "/" + what).getBytes(StandardCharsets.UTF_8));
        }

        private MutableEntry last(String modifier) {
            if (entries.isEmpty()) {
                throw new IllegalStateException(modifier + "() applies to the entry added last; add one first");
            }
            return entries.getLast();
        }

        private MutableEntry lastContact(String modifier) {
            MutableEntry entry = last(modifier);
            if (entry.contactType == null) {
                throw new IllegalStateException(modifier + "() applies to a contactgegeven, not to a voorkeur");
            }
            return entry;
        }

        private static List<Scope> scopesOf(Scope[] scopes) {
            List<Scope> list = Arrays.asList(scopes);
            if (list.contains(null)) {
                throw new IllegalArgumentException("a scope cannot be null");
            }
            if (new HashSet<>(list).size() != list.size()) {
                throw new IllegalArgumentException("the same scope twice");
            }
            return list;
        }
    }

    private static final class MutableEntry {
        final ContactType contactType;
        final VoorkeurType voorkeurType;
        final String waarde;
        final List<Scope> scopes;
        UUID id;
        boolean verified = true;
        boolean isDefault;
        Instant createdAt = DEFAULT_TIMESTAMP;
        Instant lastUpdated = DEFAULT_TIMESTAMP;

        MutableEntry(ContactType contactType, VoorkeurType voorkeurType, String waarde, List<Scope> scopes) {
            this.contactType = contactType;
            this.voorkeurType = voorkeurType;
            this.waarde = waarde;
            this.scopes = List.copyOf(scopes);
        }
    }
}
