package nl.overheid.moz.nmc.profiel;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import nl.overheid.moz.nmc.profiel.AddressChoice.Contact;
import nl.overheid.moz.nmc.profiel.AddressChoice.Scope;
import org.junit.jupiter.api.Test;

/**
 * The address rule over every combination: each kind of entry alone, and every pair of entries in both orders and
 * with either one updated last, for a berichttype with and without a dienst, with unverified addresses allowed and
 * not. The expected choice comes from {@link #rank}, the rule written out as a table of cases in the issue's own
 * words, not from {@link AddressChoice}.
 */
class AddressChoiceTest {

    private static final String DV = "Gemeente A";
    private static final String DIENST = "Meldingen";

    /** The kinds of scope lists an entry can have, relative to DV and DIENST. */
    private enum Scopes {
        NONE(List.of()),
        THIS_DV_THIS_DIENST(List.of(new Scope(DV, DIENST))),
        THIS_DV_THIS_DIENST_OTHER_CASE(List.of(new Scope("gemeente a", "MELDINGEN"))),
        THIS_DV_WIDE(List.of(new Scope(DV, null))),
        THIS_DV_OTHER_DIENST(List.of(new Scope(DV, "Vergunningen"))),
        OTHER_DV_THIS_DIENST(List.of(new Scope("Gemeente B", DIENST))),
        OTHER_DV_WIDE(List.of(new Scope("Gemeente B", null))),
        OTHER_AND_THIS_DV_WIDE(List.of(new Scope("Gemeente B", null), new Scope(DV, null))),
        OTHER_DIENST_AND_THIS_DIENST(List.of(new Scope(DV, "Vergunningen"), new Scope(DV, DIENST)));

        final List<Scope> scopes;

        Scopes(List<Scope> scopes) {
            this.scopes = scopes;
        }
    }

    private record Kind(String type, boolean validValue, boolean verified, boolean isDefault, Scopes scopes) {}

    private static List<Kind> kinds() {
        List<Kind> kinds = new ArrayList<>();
        for (String type : List.of("Email", "Telefoonnummer", "ApplicatieId")) {
            for (boolean valid : new boolean[] {true, false}) {
                for (boolean verified : new boolean[] {true, false}) {
                    for (boolean isDefault : new boolean[] {true, false}) {
                        for (Scopes scopes : Scopes.values()) {
                            kinds.add(new Kind(type, valid, verified, isDefault, scopes));
                        }
                    }
                }
            }
        }
        return kinds;
    }

    /**
     * The oracle: 1 best, 4 worst, empty when never chosen. Written from the sentence "scoped to this DV
     * and this dienst > scoped to this DV without a dienst > isDefault > unscoped", with the exclusions first.
     */
    private static Optional<Integer> rank(Kind kind, boolean withDienst, boolean allowUnverified) {
        if (!kind.type().equals("Email") || !kind.validValue() || (!kind.verified() && !allowUnverified)) {
            return Optional.empty();
        }
        return switch (kind.scopes()) {
            case NONE -> Optional.of(kind.isDefault() ? 3 : 4);
            case THIS_DV_THIS_DIENST, THIS_DV_THIS_DIENST_OTHER_CASE -> withDienst ? Optional.of(1) : Optional.empty();
            case OTHER_DIENST_AND_THIS_DIENST -> withDienst ? Optional.of(1) : Optional.empty();
            case THIS_DV_WIDE, OTHER_AND_THIS_DV_WIDE -> Optional.of(2);
            case THIS_DV_OTHER_DIENST, OTHER_DV_THIS_DIENST, OTHER_DV_WIDE -> Optional.empty();
        };
    }

    private static Contact contact(Kind kind, int n, Instant lastUpdated) {
        return new Contact(
                new UUID(0, n),
                kind.type(),
                kind.validValue() ? "adres" + n + "@example.nl" : "geen adres",
                kind.verified(),
                kind.isDefault(),
                lastUpdated,
                kind.scopes().scopes);
    }

    @Test
    void eachKindOfEntryAloneIsChosenExactlyWhenTheRuleAllowsIt() {
        int cases = 0;
        for (Kind kind : kinds()) {
            for (boolean withDienst : new boolean[] {true, false}) {
                for (boolean allowUnverified : new boolean[] {true, false}) {
                    Contact only = contact(kind, 1, Instant.parse("2026-01-01T00:00:00Z"));
                    Optional<Contact> chosen =
                            AddressChoice.choose(List.of(only), DV, withDienst ? DIENST : null, allowUnverified);
                    assertThat(chosen.isPresent())
                            .as("%s, dienst %s, unverified allowed %s", kind, withDienst, allowUnverified)
                            .isEqualTo(rank(kind, withDienst, allowUnverified).isPresent());
                    cases++;
                }
            }
        }
        assertThat(cases).isEqualTo(3 * 2 * 2 * 2 * Scopes.values().length * 4);
    }

    @Test
    void ofEveryPairTheBetterTierWinsAndWithinATierTheLatestUpdate() {
        List<Kind> kinds = kinds();
        Instant older = Instant.parse("2026-01-01T00:00:00Z");
        Instant newer = Instant.parse("2026-02-01T00:00:00Z");
        int cases = 0;
        for (int i = 0; i < kinds.size(); i++) {
            for (int j = 0; j < kinds.size(); j++) {
                for (boolean withDienst : new boolean[] {true, false}) {
                    for (boolean allowUnverified : new boolean[] {true, false}) {
                        for (boolean firstNewer : new boolean[] {true, false}) {
                            Contact a = contact(kinds.get(i), 1, firstNewer ? newer : older);
                            Contact b = contact(kinds.get(j), 2, firstNewer ? older : newer);
                            Optional<Integer> ra = rank(kinds.get(i), withDienst, allowUnverified);
                            Optional<Integer> rb = rank(kinds.get(j), withDienst, allowUnverified);
                            Optional<Contact> expected;
                            if (ra.isEmpty() && rb.isEmpty()) {
                                expected = Optional.empty();
                            } else if (rb.isEmpty() || ra.isPresent() && ra.get() < rb.get()) {
                                expected = Optional.of(a);
                            } else if (ra.isEmpty() || rb.get() < ra.get()) {
                                expected = Optional.of(b);
                            } else {
                                expected = Optional.of(firstNewer ? a : b);
                            }
                            String dienst = withDienst ? DIENST : null;
                            assertThat(AddressChoice.choose(List.of(a, b), DV, dienst, allowUnverified))
                                    .as(
                                            "%s vs %s, dienst %s, unverified %s, first newer %s",
                                            kinds.get(i), kinds.get(j), withDienst, allowUnverified, firstNewer)
                                    .isEqualTo(expected);
                            assertThat(AddressChoice.choose(List.of(b, a), DV, dienst, allowUnverified))
                                    .as("the answer's order does not matter")
                                    .isEqualTo(expected);
                            cases++;
                        }
                    }
                }
            }
        }
        assertThat(cases).isEqualTo(kinds.size() * kinds.size() * 8);
    }

    @Test
    void anEqualUpdateFallsBackToTheSmallestIdSoTheChoiceIsStable() {
        Instant same = Instant.parse("2026-01-01T00:00:00Z");
        Contact first = new Contact(new UUID(0, 1), "Email", "a@example.nl", true, false, same, List.of());
        Contact second = new Contact(new UUID(0, 2), "Email", "b@example.nl", true, false, same, List.of());
        assertThat(AddressChoice.choose(List.of(second, first), DV, DIENST, false))
                .contains(first);
    }

    /**
     * An address NotifyNL refuses at the door (its {@code validate_email_address}: a top-level label of letters, two
     * or more) ends the notification niet-bezorgbaar though the party may have another: it is passed over as any
     * unusable entry is. One NotifyNL sends to (an internationalised domain) is not.
     */
    @Test
    void onlyAnAddressNotifyNlTakesIsChosen() {
        Instant older = Instant.parse("2026-01-01T00:00:00Z");
        Instant newer = Instant.parse("2026-02-01T00:00:00Z");
        Contact usable = new Contact(new UUID(0, 1), "Email", "info@example.nl", true, false, older, List.of());
        for (String refused : List.of("info@example.n", "info@192.168.1.10", "info@example.123", "a..b@example.nl")) {
            Contact newest = new Contact(new UUID(0, 2), "Email", refused, true, false, newer, List.of());
            assertThat(AddressChoice.choose(List.of(newest, usable), DV, DIENST, false))
                    .as(refused)
                    .contains(usable);
        }
        Contact international = new Contact(new UUID(0, 3), "Email", "info@bücher.de", true, false, newer, List.of());
        assertThat(AddressChoice.choose(List.of(international, usable), DV, DIENST, false))
                .contains(international);
    }

    /**
     * NotifyNL's whitespace rule exactly (notifynl-utils {@code formatters.strip_and_remove_obscure_whitespace}
     * and {@code validate_email_address} at 7f8ffc3): it removes the zero-width characters, U+2028/2029 and the
     * non-breaking spaces U+00A0/U+202F anywhere, strips only Python's {@code string.whitespace} from the ends, and its
     * {@code \s} is Unicode's. An em space or a U+001F at the end is refused, a non-breaking space taken.
     */
    @Test
    void notifyNlsOwnWhitespaceRuleIsKeptExactly() {
        assertThat(AddressChoice.notifyNlTakes("info@voorbeeld.nl\u2003"))
                .as("em space")
                .isFalse();
        assertThat(AddressChoice.notifyNlTakes("info@voorbeeld.nl\u001f"))
                .as("unit separator")
                .isFalse();
        assertThat(AddressChoice.notifyNlTakes("info@voorbeeld.nl\u00a0"))
                .as("no-break space")
                .isTrue();
        assertThat(AddressChoice.notifyNlTakes("info@voor\u202fbeeld.nl"))
                .as("narrow no-break space")
                .isTrue();
        assertThat(AddressChoice.notifyNlTakes("\u2028info@voorbeeld.nl\u2029")).isTrue();
        assertThat(AddressChoice.notifyNlTakes(" \tinfo@voorbeeld.nl\n\u000b")).isTrue();
        assertThat(AddressChoice.notifyNlTakes("info@voor beeld.nl")).isFalse();
        // Python's idna codec allows code points Unicode 3.2 did not assign (IDNA2003's AllowUnassigned)
        assertThat(AddressChoice.notifyNlTakes("info@\uD83D\uDE00.nl"))
                .as("an emoji domain")
                .isTrue();
        assertThat(AddressChoice.normalised(" info@voor\u00a0beeld.nl\n")).isEqualTo("info@voorbeeld.nl");
    }

    @Test
    void nothingToChooseFromIsNoAddress() {
        assertThat(AddressChoice.choose(List.of(), DV, DIENST, true)).isEmpty();
    }

    @Test
    void aContactPrintsNoAddress() {
        Contact contact =
                new Contact(new UUID(0, 1), "Email", "geheim@example.nl", true, false, Instant.EPOCH, List.of());
        assertThat(contact.toString()).doesNotContain("geheim");
    }
}
