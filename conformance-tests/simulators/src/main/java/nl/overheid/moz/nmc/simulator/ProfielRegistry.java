package nl.overheid.moz.nmc.simulator;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.UUID;

/**
 * The Profielservice simulator's parties, in memory, with the real service's lookup, scope filter and soft
 * delete (its {@code PartijService}, as quoted in the research notes §3.2 and §3.6). Starts with the dev data of
 * {@link ProfielDevData}; {@link #reset()} restores it. Thread-safe: every operation holds the registry's lock.
 */
final class ProfielRegistry {

    /** What {@link #delete} did. */
    enum DeleteOutcome {
        /** Unknown or deleted party, unknown id, an id of another party, or an id deleted before: the same 404. */
        NOT_FOUND,
        /** The contactgegeven is soft-deleted; the party keeps other active children. */
        DELETED,
        /** The contactgegeven was the party's last active child, so the party is soft-deleted too. */
        DELETED_WITH_PARTY
    }

    /** A 200 answer of {@code POST /partij}: the JSON body and what the log may say about it. */
    record Answer(String json, UUID partijId, int contactgegevens, int voorkeuren) {}

    /** A party as registered, with what has been soft-deleted since. */
    private static final class State {
        final Party party;
        final Set<UUID> deletedChildren = new HashSet<>();
        boolean deleted;

        State(Party party) {
            this.party = party;
            this.deleted = party.deleted();
        }

        boolean hasActiveChild() {
            return party.contacts().stream().anyMatch(contact -> !deletedChildren.contains(contact.id()))
                    || party.voorkeuren().stream().anyMatch(voorkeur -> !deletedChildren.contains(voorkeur.id()));
        }
    }

    private final Map<String, State> byIdentification = new LinkedHashMap<>();
    private Long shuffleSeed;
    private long shuffledAnswers;

    ProfielRegistry() {
        reset();
    }

    /** Adds a party, replacing every party that shares one of its identifications. */
    synchronized Party register(Party party) {
        for (Party.Identification identification : party.identifications()) {
            State replaced = byIdentification.remove(key(identification.type(), identification.nummer()));
            if (replaced != null) {
                replaced.party
                        .identifications()
                        .forEach(other -> byIdentification.remove(key(other.type(), other.nummer())));
            }
        }
        State state = new State(party);
        party.identifications()
                .forEach(identification ->
                        byIdentification.put(key(identification.type(), identification.nummer()), state));
        return party;
    }

    /**
     * {@code getPartij}: the active party with exactly this identification, its active entries narrowed as the
     * real service does (see {@link #matches}), or empty for an unknown or soft-deleted party.
     *
     * @param unfiltered answer every active entry whatever the filter asks: a fault, not the real service
     */
    synchronized Optional<Answer> lookup(
            Party.IdentificatieType type, String nummer, String dienstverlener, String dienstNaam, boolean unfiltered) {
        State state = byIdentification.get(key(type, nummer));
        if (state == null || state.deleted) {
            return Optional.empty();
        }
        String dv = unfiltered ? null : dienstverlener;
        String dienst = unfiltered ? null : dienstNaam;
        List<Map<String, Object>> contactgegevens = new ArrayList<>();
        for (Party.Contact contact : state.party.contacts()) {
            if (!state.deletedChildren.contains(contact.id()) && matches(contact.scopes(), dv, dienst)) {
                contactgegevens.add(JsonText.object(
                        "id",
                        contact.id(),
                        "type",
                        contact.type().name(),
                        "waarde",
                        contact.waarde(),
                        "isGeverifieerd",
                        contact.verified(),
                        "isDefault",
                        contact.isDefault(),
                        "createdAt",
                        instant(contact.createdAt()),
                        "lastUpdated",
                        instant(contact.lastUpdated()),
                        "scopes",
                        scopes(contact.scopes())));
            }
        }
        List<Map<String, Object>> voorkeuren = new ArrayList<>();
        for (Party.Voorkeur voorkeur : state.party.voorkeuren()) {
            if (!state.deletedChildren.contains(voorkeur.id()) && matches(voorkeur.scopes(), dv, dienst)) {
                voorkeuren.add(JsonText.object(
                        "id",
                        voorkeur.id(),
                        "voorkeurType",
                        voorkeur.type().name(),
                        "waarde",
                        voorkeur.waarde(),
                        "createdAt",
                        instant(voorkeur.createdAt()),
                        "lastUpdated",
                        instant(voorkeur.lastUpdated()),
                        "scopes",
                        scopes(voorkeur.scopes())));
            }
        }
        List<Map<String, Object>> identificaties = state.party.identifications().stream()
                .map(identification -> JsonText.object(
                        "identificatieType",
                        identification.type().name(),
                        "identificatieNummer",
                        identification.nummer()))
                .toList();
        if (shuffleSeed != null) {
            Random random = new Random(shuffleSeed * 31 + shuffledAnswers++);
            Collections.shuffle(contactgegevens, random);
            Collections.shuffle(voorkeuren, random);
        }
        String json = JsonText.write(JsonText.object(
                "partijId",
                state.party.partijId(),
                "identificaties",
                identificaties,
                "voorkeuren",
                voorkeuren,
                "contactgegevens",
                contactgegevens));
        return Optional.of(new Answer(json, state.party.partijId(), contactgegevens.size(), voorkeuren.size()));
    }

    /**
     * {@code verwijderContactgegeven}: soft-deletes the active contactgegeven {@code id} of the active party with
     * this identification, and the party itself when that was its last active contactgegeven or voorkeur.
     */
    synchronized DeleteOutcome delete(Party.IdentificatieType type, String nummer, UUID id) {
        State state = byIdentification.get(key(type, nummer));
        if (state == null
                || state.deleted
                || state.deletedChildren.contains(id)
                || state.party.contacts().stream()
                        .noneMatch(contact -> contact.id().equals(id))) {
            return DeleteOutcome.NOT_FOUND;
        }
        state.deletedChildren.add(id);
        if (state.hasActiveChild()) {
            return DeleteOutcome.DELETED;
        }
        state.deleted = true;
        return DeleteOutcome.DELETED_WITH_PARTY;
    }

    /** From now on every answer lists its entries in a seeded random order; null returns to insertion order. */
    synchronized void shuffle(Long seed) {
        this.shuffleSeed = seed;
        this.shuffledAnswers = 0;
    }

    /** The dev data again, every soft delete undone, insertion order. */
    synchronized void reset() {
        byIdentification.clear();
        shuffle(null);
        ProfielDevData.parties().forEach(this::register);
    }

    /**
     * The real service's filter ({@code PartijService.findFilteredContactgegevens}): without {@code dienstverlener}
     * and {@code dienstNaam} everything; an unscoped entry always; otherwise an entry of which at least one scope
     * satisfies every given condition at once — {@code dienstverlener} equal to the scope's dienstverlener, and
     * {@code dienstNaam} equal to the scope's dienst or the scope dienstverlener-wide — both compared
     * case-insensitively ({@code lower()} in its query).
     */
    static boolean matches(List<Scope> scopes, String dienstverlener, String dienstNaam) {
        if ((dienstverlener == null && dienstNaam == null) || scopes.isEmpty()) {
            return true;
        }
        for (Scope scope : scopes) {
            boolean dvMatches =
                    dienstverlener == null || lower(scope.dienstverlenerNaam()).equals(lower(dienstverlener));
            boolean dienstMatches = dienstNaam == null
                    || scope.dienstverlenerWide()
                    || lower(scope.dienstNaam()).equals(lower(dienstNaam));
            if (dvMatches && dienstMatches) {
                return true;
            }
        }
        return false;
    }

    private static String lower(String text) {
        return text.toLowerCase(Locale.ROOT);
    }

    private static List<Map<String, Object>> scopes(List<Scope> scopes) {
        return scopes.stream()
                .map(scope -> JsonText.object(
                        "dienstverlenerNaam", scope.dienstverlenerNaam(), "dienstNaam", scope.dienstNaam()))
                .toList();
    }

    /** Jackson's {@code InstantSerializer} text: ISO-8601 in UTC with {@code Z}, a fraction only when there is one. */
    static String instant(Instant instant) {
        return instant.toString();
    }

    private static String key(Party.IdentificatieType type, String nummer) {
        return type + "/" + nummer; // exact: the service does not normalise the number
    }
}
