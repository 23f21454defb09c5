package nl.overheid.moz.nmc.simulator;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.delete;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static nl.overheid.moz.nmc.simulator.ProfielserviceSimulator.DEV_DV_1;
import static nl.overheid.moz.nmc.simulator.ProfielserviceSimulator.DIENST_MELDINGEN;
import static nl.overheid.moz.nmc.simulator.ProfielserviceSimulator.TEST_DV_A;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.tomakehurst.wiremock.http.Fault;
import java.io.UncheckedIOException;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Profielservice simulator against the real service's behaviour: the {@code /partij} answer and its scope
 * filter (the cases of the real {@code PartijServiceScopeFilterTest}), every dev party and the address the choice
 * rule picks from it, the soft delete, the exact 400/404/405/406/415 bodies, the FSC Outway checks on and off,
 * the fault helpers and logs free of identifying numbers and e-mail addresses. Every answer whose status the
 * contract declares is also checked by an independent validator over {@code api-spec/profielservice.yaml}.
 */
class ProfielserviceSimulatorTest {

    private static final SimulatorHttp.Oracle CONTRACT = new SimulatorHttp.Oracle("profielservice.yaml");
    private static final String TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    private static final Pattern TIMESTAMP = Pattern.compile("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z");

    private static final List<String> LOG = new CopyOnWriteArrayList<>();
    private static ProfielserviceSimulator sim;

    @BeforeAll
    static void start() {
        sim = ProfielserviceSimulator.start(
                ProfielserviceSimulator.Config.builder().log(LOG::add).build());
    }

    @AfterEach
    void reset() {
        sim.reset();
    }

    @AfterAll
    static void noPersonalDataWasLoggedByAnyTest() {
        try {
            assertThat(LOG).as("the simulator logged").isNotEmpty();
            assertNoPersonalData(LOG);
        } finally {
            sim.close();
        }
    }

    // --- POST /partij ----------------------------------------------------------------------------------------

    @Test
    void aPartyIsAnsweredWithAllThreeListsAndTheRealServicesHeaders() {
        SimulatorHttp.Response response = partij("KVK", ProfielserviceSimulator.KVK_DELIVERED, null, null);

        assertThat(response.status()).as(response.body()).isEqualTo(200);
        assertThat(response.header("Content-Type"))
                .hasValueSatisfying(type -> assertThat(type).startsWith("application/json"));
        assertServiceHeaders(response);
        JsonNode body = response.json();
        assertThat(body.fieldNames())
                .toIterable()
                .containsExactly("partijId", "identificaties", "voorkeuren", "contactgegevens");
        assertThat(UUID.fromString(body.path("partijId").asText())).isNotNull();
        assertThat(body.path("identificaties")).singleElement().satisfies(identificatie -> {
            assertThat(identificatie.path("identificatieType").asText()).isEqualTo("KVK");
            assertThat(identificatie.path("identificatieNummer").asText())
                    .isEqualTo(ProfielserviceSimulator.KVK_DELIVERED);
        });
        assertThat(body.path("voorkeuren").isArray()).isTrue();
        JsonNode contact = body.path("contactgegevens").get(0);
        assertThat(contact.fieldNames())
                .toIterable()
                .containsExactly(
                        "id", "type", "waarde", "isGeverifieerd", "isDefault", "createdAt", "lastUpdated", "scopes");
        assertThat(UUID.fromString(contact.path("id").asText())).isNotNull();
        assertThat(contact.path("waarde").asText()).isEqualTo(ProfielserviceSimulator.DEV_EMAILADRES);
        assertThat(contact.path("createdAt").asText()).matches(TIMESTAMP);
        assertThat(contact.path("lastUpdated").asText()).matches(TIMESTAMP);
        assertThat(contact.path("scopes").isArray()).isTrue();
    }

    @Test
    void aDienstverlenerWideScopeCarriesAnExplicitNullDienstNaam() {
        SimulatorHttp.Response response =
                partij("KVK", ProfielserviceSimulator.KVK_SCOPE_DV, DEV_DV_1, DIENST_MELDINGEN);

        JsonNode gemeente = entry(response.json(), "gemeente@dv-breed.nl");
        assertThat(gemeente.path("scopes")).singleElement().satisfies(scope -> {
            assertThat(scope.path("dienstverlenerNaam").asText()).isEqualTo(DEV_DV_1);
            assertThat(scope.has("dienstNaam")).isTrue();
            assertThat(scope.path("dienstNaam").isNull()).isTrue();
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"99999999", "12345689", "1234567", "012345670", " 12345670", "12345670 "})
    void anUnknownSoftDeletedOrInexactNumberIsTheRealServices404(String nummer) {
        SimulatorHttp.Response response = partij("KVK", nummer, null, null);

        assertThat(response.status()).isEqualTo(404);
        assertThat(response.header("Content-Type")).contains("application/problem+json");
        assertServiceHeaders(response);
        assertThat(response.body())
                .isEqualTo(
                        "{\"status\":404,\"title\":\"Partij niet gevonden\",\"detail\":"
                                + "\"Geen partij gevonden voor het opgegeven identificatienummer.\",\"instance\":\"/api/profielservice/v1/partij\"}");
    }

    @Test
    void theNumberIsMatchedWithItsType() {
        assertThat(partij("RSIN", ProfielserviceSimulator.KVK_DELIVERED, null, null)
                        .status())
                .isEqualTo(404);
        assertThat(partij("RSIN", ProfielserviceSimulator.RSIN_DELIVERED, null, null)
                        .status())
                .isEqualTo(200);
        assertThat(partij("BSN", ProfielserviceSimulator.RSIN_DELIVERED, null, null)
                        .status())
                .isEqualTo(404);
        assertThat(partij("BSN", ProfielserviceSimulator.BSN_DELIVERED, null, null)
                        .status())
                .isEqualTo(200);
    }

    @Test
    void theAnswerDoesNotDependOnAuthorizationOrAccept() {
        for (String accept : List.of("application/json", "application/problem+json", "*/*", "application/*")) {
            SimulatorHttp.Call call = partijCall(body("KVK", ProfielserviceSimulator.KVK_DELIVERED, null, null))
                    .header("Accept", accept)
                    .header("Authorization", "Bearer whatever");
            assertThat(CONTRACT.conforming(call, call.send()).status())
                    .as(accept)
                    .isEqualTo(200);
        }
        SimulatorHttp.Response html = partijCall(body("KVK", ProfielserviceSimulator.KVK_DELIVERED, null, null))
                .header("Accept", "text/html")
                .send();
        assertThat(html.status()).isEqualTo(406);
        assertThat(html.json().path("title").asText()).isEqualTo("Not Acceptable");
    }

    // --- the real service's scope filter (PartijServiceScopeFilterTest) --------------------------------------

    /** The real test's scenario: one unscoped row, one (DV-A, Dienst-A), one (DV-B, Dienst-B), and voorkeuren. */
    private static void scenarioWithThreeScopes() {
        sim.register(Party.bsn("999990019")
                .phone("0600000000")
                .phone("0611111111", Scope.of("DV-A", "Dienst-A"))
                .phone("0622222222", Scope.of("DV-B", "Dienst-B"))
                .voorkeur(Party.VoorkeurType.WebsiteTaal, "nl")
                .voorkeur(Party.VoorkeurType.Aanhef, "Geachte", Scope.of("DV-A", "Dienst-A")));
    }

    static Stream<Arguments> scopeFilterCases() {
        return Stream.of(
                Arguments.of(
                        "filterOpDienstverlener_GeeftEigenScopeEnOngescopteRijen",
                        "DV-A",
                        null,
                        List.of("0600000000", "0611111111"),
                        2),
                Arguments.of(
                        "filterOpDienstverlener_IsHoofdletterongevoelig",
                        "dv-a",
                        null,
                        List.of("0600000000", "0611111111"),
                        2),
                Arguments.of(
                        "filterOpDienstverlenerEnDienst_CombineertBeideVoorwaarden",
                        "DV-A",
                        "Dienst-A",
                        List.of("0600000000", "0611111111"),
                        2),
                Arguments.of(
                        "filterOpAndereDienstVanZelfdeDienstverlener_LaatDieScopeWeg",
                        "DV-A",
                        "Dienst-B",
                        List.of("0600000000"),
                        1),
                Arguments.of(
                        "leegFilter_GeeftAllesZonderFilterquery",
                        null,
                        null,
                        List.of("0600000000", "0611111111", "0622222222"),
                        2),
                Arguments.of(
                        "alleenDienstNaamZonderDienstverlener_FiltertOpDienst",
                        null,
                        "Dienst-A",
                        List.of("0600000000", "0611111111"),
                        2),
                Arguments.of(
                        "dienstNaamIsHoofdletterongevoelig", null, "DIENST-b", List.of("0600000000", "0622222222"), 1),
                Arguments.of(
                        "filterOpOnbekendeDienstverlener_GeeftAlleenOngescopteRijen",
                        "DV-Onbekend",
                        null,
                        List.of("0600000000"),
                        1));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scopeFilterCases")
    void theScopeFilterIsTheRealServices(
            String realTest, String dienstverlener, String dienstNaam, List<String> expected, int voorkeuren) {
        scenarioWithThreeScopes();

        JsonNode body = partij("BSN", "999990019", dienstverlener, dienstNaam).json();

        assertThat(values(body)).as(realTest).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(body.path("voorkeuren").size()).as(realTest).isEqualTo(voorkeuren);
    }

    @Test
    void dienstverlenerBredeScope_ValtBinnenElkeDienstFilter() {
        sim.register(Party.bsn("999990019").phone("0633333333", Scope.of("DV-A")));

        assertThat(values(
                        partij("BSN", "999990019", "DV-A", "WillekeurigeDienst").json()))
                .containsExactly("0633333333");
        assertThat(values(partij("BSN", "999990019", null, "WillekeurigeDienst").json()))
                .containsExactly("0633333333");
        assertThat(values(
                        partij("BSN", "999990019", "DV-B", "WillekeurigeDienst").json()))
                .isEmpty();
    }

    @Test
    void withBothFiltersOneScopeMustSatisfyBoth() {
        sim.register(Party.kvk("12345678")
                .email("kruislings@voorbeeld.nl", Scope.of("DV-A", "Dienst-B"), Scope.of("DV-B", "Dienst-A")));

        assertThat(values(partij("KVK", "12345678", "DV-A", "Dienst-A").json())).isEmpty();
        assertThat(values(partij("KVK", "12345678", "DV-A", "Dienst-B").json()))
                .containsExactly("kruislings@voorbeeld.nl");
        assertThat(values(partij("KVK", "12345678", null, "Dienst-A").json()))
                .containsExactly("kruislings@voorbeeld.nl");
    }

    @Test
    void aReturnedEntryListsAllItsScopesOnce() {
        sim.register(
                Party.bsn("999990019").phone("0644444444", Scope.of("DV-A", "Dienst-A"), Scope.of("DV-B", "Dienst-B")));

        JsonNode body = partij("BSN", "999990019", "DV-A", null).json();

        assertThat(body.path("contactgegevens"))
                .singleElement()
                .satisfies(entry -> assertThat(entry.path("scopes").size()).isEqualTo(2));
    }

    // --- the dev data and the choice rule ----------------------------------------------------------------------

    /**
     * One row of the dev table: the e-mail addresses each lookup answers, in answer order, and what the choice
     * rule picks from them by default and with unverified addresses allowed (null: none).
     */
    record DevRow(
            String type,
            String nummer,
            List<String> dv1,
            String dv1Pick,
            String dv1PickUnverified,
            List<String> dvA,
            String dvAPick,
            String dvAPickUnverified) {

        @Override
        public String toString() {
            return type + " " + nummer;
        }
    }

    static Stream<DevRow> devTable() {
        String delivered = ProfielserviceSimulator.DEV_EMAILADRES;
        String perm = NotifyNlSimulator.PERM_FAIL_ADDRESS;
        String temp = NotifyNlSimulator.TEMP_FAIL_ADDRESS;
        return Stream.of(
                new DevRow(
                        "KVK",
                        ProfielserviceSimulator.KVK_DELIVERED,
                        List.of(delivered),
                        delivered,
                        delivered,
                        List.of(delivered),
                        delivered,
                        delivered),
                new DevRow(
                        "KVK",
                        ProfielserviceSimulator.KVK_PERM_FAIL,
                        List.of(perm),
                        perm,
                        perm,
                        List.of(perm),
                        perm,
                        perm),
                new DevRow(
                        "KVK",
                        ProfielserviceSimulator.KVK_TEMP_FAIL,
                        List.of(temp),
                        temp,
                        temp,
                        List.of(temp),
                        temp,
                        temp),
                new DevRow("KVK", ProfielserviceSimulator.KVK_NO_EMAIL, List.of(), null, null, List.of(), null, null),
                new DevRow(
                        "KVK",
                        ProfielserviceSimulator.KVK_SCOPE_DIENST,
                        List.of(
                                "algemeen@alle-niveaus.nl",
                                "standaard@alle-niveaus.nl",
                                "gemeente@alle-niveaus.nl",
                                "meldingen@alle-niveaus.nl"),
                        "meldingen@alle-niveaus.nl",
                        "meldingen@alle-niveaus.nl",
                        List.of("algemeen@alle-niveaus.nl", "standaard@alle-niveaus.nl"),
                        "standaard@alle-niveaus.nl",
                        "standaard@alle-niveaus.nl"),
                new DevRow(
                        "KVK",
                        ProfielserviceSimulator.KVK_SCOPE_DV,
                        List.of("standaard@dv-breed.nl", "algemeen@dv-breed.nl", "gemeente@dv-breed.nl"),
                        "gemeente@dv-breed.nl",
                        "gemeente@dv-breed.nl",
                        List.of("standaard@dv-breed.nl", "algemeen@dv-breed.nl", "dva@dv-breed.nl"),
                        "dva@dv-breed.nl",
                        "dva@dv-breed.nl"),
                new DevRow(
                        "KVK",
                        ProfielserviceSimulator.KVK_DEFAULT,
                        List.of("algemeen@standaard.nl", "standaard@standaard.nl"),
                        "standaard@standaard.nl",
                        "standaard@standaard.nl",
                        List.of("algemeen@standaard.nl", "standaard@standaard.nl"),
                        "standaard@standaard.nl",
                        "standaard@standaard.nl"),
                new DevRow(
                        "KVK",
                        ProfielserviceSimulator.KVK_UNSCOPED,
                        List.of("ongescoped@ongescoped.nl"),
                        "ongescoped@ongescoped.nl",
                        "ongescoped@ongescoped.nl",
                        List.of("ongescoped@ongescoped.nl"),
                        "ongescoped@ongescoped.nl",
                        "ongescoped@ongescoped.nl"),
                new DevRow(
                        "KVK",
                        ProfielserviceSimulator.KVK_TIE,
                        List.of(
                                "eerder@gelijkspel.nl",
                                "later@gelijkspel.nl",
                                "oudst@gelijkspel.nl",
                                "algemeen-oud@gelijkspel.nl",
                                "algemeen-nieuw@gelijkspel.nl"),
                        "later@gelijkspel.nl",
                        "later@gelijkspel.nl",
                        List.of("algemeen-oud@gelijkspel.nl", "algemeen-nieuw@gelijkspel.nl"),
                        "algemeen-nieuw@gelijkspel.nl",
                        "algemeen-nieuw@gelijkspel.nl"),
                new DevRow(
                        "KVK",
                        ProfielserviceSimulator.KVK_UNVERIFIED_ONLY,
                        List.of("onbevestigd@ongeverifieerd.nl"),
                        null,
                        "onbevestigd@ongeverifieerd.nl",
                        List.of("onbevestigd@ongeverifieerd.nl"),
                        null,
                        "onbevestigd@ongeverifieerd.nl"),
                new DevRow(
                        "KVK",
                        ProfielserviceSimulator.KVK_UNVERIFIED_SKIPPED,
                        List.of(
                                "ook-onbevestigd@overgeslagen.nl", "onbevestigd-standaard@overgeslagen.nl",
                                "onbevestigd@overgeslagen.nl", "bevestigd@overgeslagen.nl"),
                        "bevestigd@overgeslagen.nl",
                        "onbevestigd@overgeslagen.nl",
                        List.of(
                                "ook-onbevestigd@overgeslagen.nl",
                                "onbevestigd-standaard@overgeslagen.nl",
                                "bevestigd@overgeslagen.nl"),
                        "bevestigd@overgeslagen.nl",
                        "onbevestigd-standaard@overgeslagen.nl"),
                new DevRow(
                        "KVK", ProfielserviceSimulator.KVK_OTHER_DV_ONLY, List.of(), null, null, List.of(), null, null),
                new DevRow(
                        "KVK", ProfielserviceSimulator.KVK_VOORKEUR_ONLY, List.of(), null, null, List.of(), null, null),
                new DevRow(
                        "RSIN",
                        ProfielserviceSimulator.RSIN_DELIVERED,
                        List.of("info@voorbeeldstichting.nl"),
                        "info@voorbeeldstichting.nl",
                        "info@voorbeeldstichting.nl",
                        List.of("info@voorbeeldstichting.nl"),
                        "info@voorbeeldstichting.nl",
                        "info@voorbeeldstichting.nl"),
                new DevRow(
                        "BSN",
                        ProfielserviceSimulator.BSN_DELIVERED,
                        List.of("burger@voorbeeldpersoon.nl"),
                        "burger@voorbeeldpersoon.nl",
                        "burger@voorbeeldpersoon.nl",
                        List.of("burger@voorbeeldpersoon.nl"),
                        "burger@voorbeeldpersoon.nl",
                        "burger@voorbeeldpersoon.nl"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("devTable")
    void everyDevPartyAnswersAndYieldsThePickOfTheTable(DevRow row) {
        JsonNode forDv1 =
                partij(row.type(), row.nummer(), DEV_DV_1, DIENST_MELDINGEN).json();
        JsonNode forDvA =
                partij(row.type(), row.nummer(), TEST_DV_A, DIENST_MELDINGEN).json();

        assertThat(emails(forDv1)).as("dev DV 1 / test-bericht").containsExactlyElementsOf(row.dv1());
        assertThat(emails(forDvA)).as("DV A / test-bericht").containsExactlyElementsOf(row.dvA());
        assertThat(pick(forDv1, DEV_DV_1, DIENST_MELDINGEN, false)).isEqualTo(Optional.ofNullable(row.dv1Pick()));
        assertThat(pick(forDv1, DEV_DV_1, DIENST_MELDINGEN, true))
                .isEqualTo(Optional.ofNullable(row.dv1PickUnverified()));
        assertThat(pick(forDvA, TEST_DV_A, DIENST_MELDINGEN, false)).isEqualTo(Optional.ofNullable(row.dvAPick()));
        assertThat(pick(forDvA, TEST_DV_A, DIENST_MELDINGEN, true))
                .isEqualTo(Optional.ofNullable(row.dvAPickUnverified()));
        if (row.dv1().size() > 1) {
            assertThat(row.dv1().getFirst())
                    .as("the order is never the rule's")
                    .isNotIn(row.dv1Pick(), row.dv1PickUnverified());
        }
        if (row.dvA().size() > 1) {
            assertThat(row.dvA().getFirst())
                    .as("the order is never the rule's")
                    .isNotIn(row.dvAPick(), row.dvAPickUnverified());
        }
    }

    @Test
    void theDevTableCoversEveryRegisteredParty() {
        List<String> tabled = new ArrayList<>(devTable().map(DevRow::nummer).toList());
        tabled.add(ProfielserviceSimulator.KVK_DELETED);

        assertThat(ProfielDevData.parties())
                .extracting(party -> party.identifications().getFirst().nummer())
                .containsExactlyInAnyOrderElementsOf(tabled);
    }

    @Test
    void devPartiesWithoutEmailAnswer200() {
        JsonNode noEmail =
                partij("KVK", ProfielserviceSimulator.KVK_NO_EMAIL, null, null).json();
        assertThat(noEmail.path("contactgegevens"))
                .extracting(entry -> entry.path("type").asText())
                .containsExactly("Telefoonnummer", "ApplicatieId");

        JsonNode voorkeurOnly = partij("KVK", ProfielserviceSimulator.KVK_VOORKEUR_ONLY, DEV_DV_1, DIENST_MELDINGEN)
                .json();
        assertThat(voorkeurOnly.path("contactgegevens").isEmpty()).isTrue();
        assertThat(voorkeurOnly.path("voorkeuren"))
                .singleElement()
                .satisfies(voorkeur ->
                        assertThat(voorkeur.path("voorkeurType").asText()).isEqualTo("WebsiteTaal"));

        JsonNode otherDv = partij(
                        "KVK",
                        ProfielserviceSimulator.KVK_OTHER_DV_ONLY,
                        ProfielserviceSimulator.DEV_DV_2,
                        DIENST_MELDINGEN)
                .json();
        assertThat(pick(otherDv, ProfielserviceSimulator.DEV_DV_2, DIENST_MELDINGEN, false))
                .contains("provincie-meldingen@andere-dv.nl");
    }

    @Test
    void theDevRsinAndBsnPassTheElfproef() {
        assertThat(elfproef(ProfielserviceSimulator.RSIN_DELIVERED)).isTrue();
        assertThat(elfproef(ProfielserviceSimulator.BSN_DELIVERED)).isTrue();
        assertThat(elfproef("123456789")).isFalse();
    }

    @Test
    void theDevDataKeepsItsIdsAcrossResets() {
        String before =
                partij("KVK", ProfielserviceSimulator.KVK_TIE, null, null).body();
        sim.reset();
        assertThat(partij("KVK", ProfielserviceSimulator.KVK_TIE, null, null).body())
                .isEqualTo(before);
    }

    @Test
    void shuffledEntriesAreReproducibleAndResetRestoresTheOrder() {
        List<String> inOrder = values(partij("KVK", ProfielserviceSimulator.KVK_SCOPE_DIENST, null, null)
                .json());

        sim.shuffleEntries(42);
        List<List<String>> shuffled = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            shuffled.add(values(partij("KVK", ProfielserviceSimulator.KVK_SCOPE_DIENST, null, null)
                    .json()));
        }
        sim.shuffleEntries(42);
        List<List<String>> again = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            again.add(values(partij("KVK", ProfielserviceSimulator.KVK_SCOPE_DIENST, null, null)
                    .json()));
        }

        assertThat(again).isEqualTo(shuffled);
        assertThat(shuffled).allSatisfy(order -> assertThat(order).containsExactlyInAnyOrderElementsOf(inOrder));
        assertThat(shuffled).anySatisfy(order -> assertThat(order).isNotEqualTo(inOrder));
        sim.reset();
        assertThat(values(partij("KVK", ProfielserviceSimulator.KVK_SCOPE_DIENST, null, null)
                        .json()))
                .isEqualTo(inOrder);
    }

    // --- registering parties -------------------------------------------------------------------------------

    @Test
    void aRegisteredPartyIsAnsweredAsBuiltUntilReset() {
        Instant updated = Instant.parse("2026-04-01T10:15:30.123Z");
        Party party = sim.register(Party.kvk("12345678")
                .email("A@B.nl", Scope.of("Gemeente A", "Meldingen"))
                .verified(false)
                .lastUpdated(updated)
                .email("info@b.nl")
                .asDefault()
                .identification(Party.IdentificatieType.RSIN, "123456782"));

        JsonNode body = partij("KVK", "12345678", null, null).json();
        assertThat(body.path("partijId").asText()).isEqualTo(party.partijId().toString());
        assertThat(body.path("identificaties")).hasSize(2);
        JsonNode scoped = entry(body, "a@b.nl");
        assertThat(scoped.path("id").asText())
                .isEqualTo(party.contact("a@b.nl").id().toString());
        assertThat(scoped.path("isGeverifieerd").asBoolean()).isFalse();
        assertThat(scoped.path("lastUpdated").asText()).isEqualTo("2026-04-01T10:15:30.123Z");
        assertThat(entry(body, "info@b.nl").path("isDefault").asBoolean()).isTrue();
        assertThat(partij("RSIN", "123456782", null, null)
                        .json()
                        .path("partijId")
                        .asText())
                .as("the same party under its other identification, replacing the dev RSIN party")
                .isEqualTo(party.partijId().toString());

        sim.reset();
        assertThat(partij("KVK", "12345678", null, null).status()).isEqualTo(404);
        assertThat(emails(partij("RSIN", "123456782", null, null).json()))
                .containsExactly("info@voorbeeldstichting.nl");
    }

    @Test
    void registrationReplacesADevParty() {
        sim.register(Party.kvk(ProfielserviceSimulator.KVK_DELIVERED).email(NotifyNlSimulator.SLOW_CALLBACK_ADDRESS));
        sim.register(
                Party.kvk(ProfielserviceSimulator.KVK_TEMP_FAIL).email("x@y.nl").deleted());

        assertThat(emails(partij("KVK", ProfielserviceSimulator.KVK_DELIVERED, null, null)
                        .json()))
                .containsExactly(NotifyNlSimulator.SLOW_CALLBACK_ADDRESS);
        assertThat(partij("KVK", ProfielserviceSimulator.KVK_TEMP_FAIL, null, null)
                        .status())
                .isEqualTo(404);
    }

    @Test
    void theBuilderKeepsTheRealServicesInvariantsWithoutNamingValues() {
        assertThatThrownBy(() -> Party.kvk("12345678")
                        .email("een@b.nl")
                        .asDefault()
                        .email("twee@b.nl")
                        .asDefault()
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .message()
                .contains("default")
                .doesNotContain("@b.nl");
        assertThatThrownBy(() -> Party.kvk("12345678")
                        .email("Een@B.nl")
                        .email("een@b.nl")
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .message()
                .doesNotContain("@b.nl");
        assertThatThrownBy(() -> Party.kvk("12345678").build())
                .isInstanceOf(IllegalArgumentException.class)
                .message()
                .doesNotContain("12345678");
        assertThatThrownBy(() -> Party.kvk(" ")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Party.kvk("1234\n5678"))
                .isInstanceOf(IllegalArgumentException.class)
                .message()
                .doesNotContain("1234");
        assertThatThrownBy(() -> Party.kvk("12345678").verified(false)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> Party.kvk("12345678")
                        .voorkeur(Party.VoorkeurType.Aanhef, "Beste")
                        .asDefault())
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> Scope.of(" ", "Meldingen")).isInstanceOf(IllegalArgumentException.class);
        assertThat(Party.kvk("12345678")
                        .email("een@b.nl")
                        .asDefault()
                        .phone("0612345678")
                        .asDefault()
                        .build()
                        .contacts())
                .hasSize(2);
        assertThat(Party.kvk("12345678").email("x@b.nl").deleted().build().toString())
                .doesNotContain("12345678", "@");
    }

    // --- DELETE /contactgegeven/{id} ---------------------------------------------------------------------------

    @Test
    void aDeleteIsASoftDeleteAnsweredOnceWith204() {
        sim.register(Party.kvk("12345678").email("weg@b.nl").email("blijft@b.nl"));
        UUID id = contactId("KVK", "12345678", "weg@b.nl");

        SimulatorHttp.Response first = deleteContact(id, "KVK", "12345678");
        assertThat(first.status()).isEqualTo(204);
        assertThat(first.body()).isEmpty();
        assertServiceHeaders(first);
        assertThat(emails(partij("KVK", "12345678", null, null).json())).containsExactly("blijft@b.nl");

        SimulatorHttp.Response second = deleteContact(id, "KVK", "12345678");
        assertThat(second.status()).isEqualTo(404);
        assertThat(second.header("Content-Type")).contains("application/problem+json");
        assertThat(second.body())
                .isEqualTo("{\"status\":404,\"title\":\"Contactgegeven niet gevonden\",\"detail\":"
                        + "\"Contactgegeven of partij niet gevonden.\",\"instance\":\"/api/profielservice/v1/contactgegeven/"
                        + id + "\"}");

        assertThat(sim.deletes())
                .extracting(ProfielserviceSimulator.Delete::contactgegevenId, ProfielserviceSimulator.Delete::status)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(id, 204), org.assertj.core.groups.Tuple.tuple(id, 404));
        assertThat(sim.deletes().getFirst().identificatieNummer()).isEqualTo("12345678");
        assertThat(sim.deletes().getFirst().toString()).doesNotContain("12345678");
    }

    @Test
    void deletingTheLastChildDeletesTheParty() {
        UUID id = contactId("KVK", ProfielserviceSimulator.KVK_PERM_FAIL, NotifyNlSimulator.PERM_FAIL_ADDRESS);

        assertThat(deleteContact(id, "KVK", ProfielserviceSimulator.KVK_PERM_FAIL)
                        .status())
                .isEqualTo(204);

        assertThat(partij("KVK", ProfielserviceSimulator.KVK_PERM_FAIL, null, null)
                        .status())
                .isEqualTo(404);
        assertThat(deleteContact(id, "KVK", ProfielserviceSimulator.KVK_PERM_FAIL)
                        .status())
                .isEqualTo(404);
        sim.reset();
        assertThat(partij("KVK", ProfielserviceSimulator.KVK_PERM_FAIL, null, null)
                        .status())
                .as("undone by reset")
                .isEqualTo(200);
    }

    @Test
    void aVoorkeurKeepsThePartyWhenItsLastContactgegevenGoes() {
        sim.register(Party.kvk("12345678").email("weg@b.nl").voorkeur(Party.VoorkeurType.WebsiteTaal, "nl"));

        assertThat(deleteContact(contactId("KVK", "12345678", "weg@b.nl"), "KVK", "12345678")
                        .status())
                .isEqualTo(204);

        JsonNode body = partij("KVK", "12345678", null, null).json();
        assertThat(body.path("contactgegevens").isEmpty()).isTrue();
        assertThat(body.path("voorkeuren")).hasSize(1);
    }

    @Test
    void anUnknownIdAnIdOfAnotherPartyOrAnUnknownPartyIsTheSame404() {
        UUID ofDelivered =
                contactId("KVK", ProfielserviceSimulator.KVK_DELIVERED, ProfielserviceSimulator.DEV_EMAILADRES);

        for (SimulatorHttp.Response response : List.of(
                deleteContact(UUID.randomUUID(), "KVK", ProfielserviceSimulator.KVK_DELIVERED),
                deleteContact(ofDelivered, "KVK", ProfielserviceSimulator.KVK_TEMP_FAIL),
                deleteContact(ofDelivered, "RSIN", ProfielserviceSimulator.KVK_DELIVERED),
                deleteContact(ofDelivered, "KVK", ProfielserviceSimulator.KVK_UNKNOWN))) {
            assertThat(response.status()).isEqualTo(404);
            assertThat(response.json().path("title").asText()).isEqualTo("Contactgegeven niet gevonden");
        }
        assertThat(partij("KVK", ProfielserviceSimulator.KVK_DELIVERED, null, null)
                        .status())
                .isEqualTo(200);
        assertThat(sim.deletes())
                .extracting(ProfielserviceSimulator.Delete::status)
                .containsOnly(404);
    }

    @Test
    void aDeleteWithoutABodyIs400() {
        SimulatorHttp.Call call = deleteCall(UUID.randomUUID(), "");
        SimulatorHttp.Response response = CONTRACT.conforming(call, call.send());

        assertBadRequest(response, "Request body mag niet leeg zijn");
        assertThat(sim.deletes()).isEmpty();
    }

    @Test
    void aDeleteAcceptingOnlyJsonIs406() {
        UUID id = contactId("KVK", ProfielserviceSimulator.KVK_DELIVERED, ProfielserviceSimulator.DEV_EMAILADRES);
        String body = identificatie("KVK", ProfielserviceSimulator.KVK_DELIVERED);

        SimulatorHttp.Response refused =
                deleteCall(id, body).header("Accept", "application/json").send();
        assertThat(refused.status()).isEqualTo(406);
        assertThat(refused.header("Content-Type")).contains("application/problem+json");
        assertServiceHeaders(refused);
        assertThat(deleteCall(id, body)
                        .header("Accept", "application/json, application/problem+json;q=0")
                        .send()
                        .status())
                .isEqualTo(406);
        assertThat(partij("KVK", ProfielserviceSimulator.KVK_DELIVERED, null, null)
                        .status())
                .as("nothing deleted")
                .isEqualTo(200);

        assertThat(deleteCall(id, body).header("Accept", "*/*").send().status()).isEqualTo(204);
        sim.reset();
        assertThat(deleteCall(id, body)
                        .header("Accept", "application/problem+json")
                        .send()
                        .status())
                .isEqualTo(204);
        sim.reset();
        assertThat(deleteCall(id, body)
                        .header("Accept", "application/json, application/*")
                        .send()
                        .status())
                .isEqualTo(204);
    }

    @ParameterizedTest
    @ValueSource(strings = {"not-a-uuid", "1-1-1-1-1", "12345670", "5c0c5a7e000040008000000000000001"})
    void aPathIdThatIsNoUuidIs404(String id) {
        SimulatorHttp.Call call = new SimulatorHttp.Call(
                        root(sim), ProfielserviceSimulator.CONTACTGEGEVEN_PATH + "/" + id)
                .method("DELETE")
                .body(identificatie("KVK", ProfielserviceSimulator.KVK_DELIVERED));
        SimulatorHttp.Response response = CONTRACT.conforming(call, call.send());

        assertThat(response.status()).isEqualTo(404);
        assertThat(response.body()).isEqualTo("{\"status\":404,\"title\":\"Not Found\"}");
        assertThat(sim.deletes()).isEmpty();
    }

    // --- bad requests ------------------------------------------------------------------------------------------

    static Stream<Arguments> emptyBodies() {
        return Stream.of(Arguments.of(""), Arguments.of("   "), Arguments.of("null"));
    }

    @ParameterizedTest
    @MethodSource("emptyBodies")
    void anEmptyBodyIs400RequestBodyMagNietLeegZijn(String body) {
        SimulatorHttp.Call call = partijCall(body);
        SimulatorHttp.Response response = CONTRACT.conforming(call, call.send());

        assertBadRequest(response, "Request body mag niet leeg zijn");
        assertThat(response.body())
                .isEqualTo("{\"status\":400,\"title\":\"Bad Request\",\"detail\":"
                        + "\"Request body mag niet leeg zijn\",\"instance\":\"/api/profielservice/v1/partij\"}");
    }

    static Stream<Arguments> malformedBodies() {
        return Stream.of(
                Arguments.of("{\"identificatieNummer\":\"12345670\"}", "identificatieType"),
                Arguments.of("{\"identificatieType\":\"KVK\"}", "identificatieNummer"),
                Arguments.of("{}", "identificatieType"),
                Arguments.of(
                        "{\"identificatieType\":\"kvk\",\"identificatieNummer\":\"12345670\"}", "identificatieType"),
                Arguments.of("{\"identificatieType\":\"BSN-X\"}", "identificatieType"),
                Arguments.of("{\"identificatieType\":\"KVK\",\"identificatieNummer\":12345670}", "identificatieNummer"),
                Arguments.of(
                        "{\"identificatieType\":\"KVK\",\"identificatieNummer\":\"12345670\",\"dienstNaam\":[\"x\"]}",
                        "dienstNaam"),
                Arguments.of("{\"identificatieType\":\"KVK\",\"identificatieNummer\":", null),
                Arguments.of("[\"12345670\"]", null),
                Arguments.of("\"12345670\"", null));
    }

    @ParameterizedTest
    @MethodSource("malformedBodies")
    void aBodyJacksonRefusesIs400MalformedRequestBody(String body, String field) {
        SimulatorHttp.Call call = partijCall(body);
        SimulatorHttp.Response response = call.send();

        // The real service adds the member "field" (its OntbrekendVerplichtVeldIntegrationTest); the real contract
        // allows it with additionalProperties: true on HttpValidationProblem. Until our copy says so too, the
        // oracle's only complaint may be that undeclared member.
        assertThat(CONTRACT.responseErrors(call, response))
                .allSatisfy(complaint ->
                        assertThat(complaint).contains("additionalProperties").contains("[\"field\"]"));

        assertBadRequest(response, "Malformed request body");
        if (field == null) {
            assertThat(response.json().has("field")).isFalse();
        } else {
            assertThat(response.json().path("field").asText()).isEqualTo(field);
        }
        assertThat(response.json().has("violations")).isFalse();
        assertThat(response.body()).doesNotContain("12345670", "kvk", "BSN-X");
        assertThat(CONTRACT.requestErrors(call))
                .as("the independent validator refuses it too")
                .isNotEmpty();
    }

    static Stream<Arguments> violatingBodies() {
        return Stream.of(
                Arguments.of(
                        "{\"identificatieType\":\"KVK\",\"identificatieNummer\":\" \"}",
                        List.of(List.of("identificatieNummer", ProfielRequests.PATTERN_MESSAGE))),
                Arguments.of(
                        "{\"identificatieType\":\"KVK\",\"identificatieNummer\":\"1234\\n5670\",\"dienstverlener\":\"\","
                                + "\"dienstNaam\":\"\\t\"}",
                        List.of(
                                List.of("identificatieNummer", ProfielRequests.PATTERN_MESSAGE),
                                List.of("dienstverlener", ProfielRequests.PATTERN_MESSAGE),
                                List.of("dienstNaam", ProfielRequests.PATTERN_MESSAGE))),
                Arguments.of(
                        "{\"identificatieType\":null,\"identificatieNummer\":null}",
                        List.of(
                                List.of("identificatieType", ProfielRequests.NOT_NULL_MESSAGE),
                                List.of("identificatieNummer", ProfielRequests.NOT_NULL_MESSAGE))),
                Arguments.of(
                        "{\"identificatieType\":\"KVK\",\"identificatieNummer\":\"12345670\\r\"}",
                        List.of(List.of("identificatieNummer", ProfielRequests.PATTERN_MESSAGE))));
    }

    @ParameterizedTest
    @MethodSource("violatingBodies")
    void aBodyBeanValidationRefusesIs400WithEveryViolation(String body, List<List<String>> expected) {
        SimulatorHttp.Call call = partijCall(body);
        SimulatorHttp.Response response = CONTRACT.conforming(call, call.send());

        assertThat(response.status()).isEqualTo(400);
        assertThat(response.json().has("detail")).isFalse();
        assertThat(response.json().path("instance").asText()).isEqualTo(ProfielserviceSimulator.PARTIJ_PATH);
        assertThat(StreamSupport.stream(response.json().path("violations").spliterator(), false)
                        .map(violation -> {
                            assertThat(violation.path("in").asText()).isEqualTo("body");
                            return List.of(
                                    violation.path("field").asText(),
                                    violation.path("message").asText());
                        })
                        .toList())
                .containsExactlyElementsOf(expected);
        assertThat(response.body()).doesNotContain("12345670", "5670");
    }

    @Test
    void unknownPropertiesAreIgnoredAndNullFiltersAreAbsentFilters() {
        SimulatorHttp.Call call = partijCall(
                "{\"identificatieType\":\"KVK\",\"identificatieNummer\":\"" + ProfielserviceSimulator.KVK_SCOPE_DIENST
                        + "\",\"dienstverlener\":null,\"dienstNaam\":null,\"extra\":1}");

        SimulatorHttp.Response response = call.send();

        assertThat(response.status()).isEqualTo(200);
        assertThat(response.json().path("contactgegevens")).hasSize(7);
    }

    @Test
    void theDeleteBodyIsReadTheSameWay() {
        UUID id = UUID.randomUUID();
        assertBadRequest(deleteCall(id, "{\"identificatieType\":\"KVK\"}").send(), "Malformed request body");
        SimulatorHttp.Response blank = deleteCall(id, "{\"identificatieType\":\"KVK\",\"identificatieNummer\":\" \"}")
                .send();
        assertThat(blank.status()).isEqualTo(400);
        assertThat(blank.json().path("violations").get(0).path("field").asText())
                .isEqualTo("identificatieNummer");
        assertThat(sim.deletes()).isEmpty();
    }

    @Test
    void aBodyNotSentAsJsonIs415() {
        SimulatorHttp.Response response = partijCall(body("KVK", ProfielserviceSimulator.KVK_DELIVERED, null, null))
                .header("Content-Type", "text/plain")
                .send();

        assertThat(response.status()).isEqualTo(415);
        assertThat(response.json().path("title").asText()).isEqualTo("Unsupported Media Type");
        assertServiceHeaders(response);
        assertThat(partijCall(body("KVK", ProfielserviceSimulator.KVK_DELIVERED, null, null))
                        .header("Content-Type", "application/json; charset=utf-8")
                        .send()
                        .status())
                .isEqualTo(200);
    }

    @Test
    void otherMethodsAndPathsAreProblemsWithTheServicesHeaders() {
        SimulatorHttp.Response get = new SimulatorHttp.Call(root(sim), ProfielserviceSimulator.PARTIJ_PATH)
                .method("GET")
                .send();
        assertThat(get.status()).isEqualTo(405);
        assertThat(get.header("Allow")).contains("POST");
        assertServiceHeaders(get);

        SimulatorHttp.Response post = new SimulatorHttp.Call(
                        root(sim), ProfielserviceSimulator.CONTACTGEGEVEN_PATH + "/" + UUID.randomUUID())
                .body("{}")
                .send();
        assertThat(post.status()).isEqualTo(405);
        assertThat(post.header("Allow")).contains("DELETE");

        SimulatorHttp.Response unknown = new SimulatorHttp.Call(root(sim), "/api/profielservice/v1/partijen/12345670")
                .body("{}")
                .send();
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.header("Content-Type")).contains("application/problem+json");
        assertServiceHeaders(unknown);
        assertThat(unknown.body()).isEqualTo("{\"status\":404,\"title\":\"Not Found\"}");
    }

    // --- observability -----------------------------------------------------------------------------------------

    @Test
    void everyCallIsJournaledWithItsHeadersAndBody() {
        String body = body("KVK", ProfielserviceSimulator.KVK_DELIVERED, DEV_DV_1, DIENST_MELDINGEN);
        String transactionId = uuidV7().toString();
        partijCall(body)
                .header("traceparent", TRACEPARENT)
                .header("Fsc-Grant-Hash", "niet-gecontroleerd")
                .header("Fsc-Transaction-Id", transactionId)
                .send();
        deleteCall(UUID.randomUUID(), "").send();
        new SimulatorHttp.Call(root(sim), "/elders").method("GET").send();

        assertThat(sim.calls()).hasSize(3);
        ProfielserviceSimulator.Call lookup = sim.calls().getFirst();
        assertThat(lookup.operation()).isEqualTo("getPartij");
        assertThat(lookup.method()).isEqualTo("POST");
        assertThat(lookup.path()).isEqualTo(ProfielserviceSimulator.PARTIJ_PATH);
        assertThat(lookup.traceparent()).isEqualTo(TRACEPARENT);
        assertThat(lookup.fscGrantHash()).isEqualTo("niet-gecontroleerd");
        assertThat(lookup.fscTransactionId()).isEqualTo(transactionId);
        assertThat(lookup.status()).isEqualTo(200);
        assertThat(lookup.body()).isEqualTo(body);
        assertThat(lookup.toString())
                .doesNotContain(ProfielserviceSimulator.KVK_DELIVERED, DEV_DV_1, "niet-gecontroleerd");
        assertThat(sim.calls().get(1).operation()).isEqualTo("verwijderContactgegeven");
        assertThat(sim.calls().get(1).status()).isEqualTo(400);
        assertThat(sim.calls().get(2).operation()).isNull();
        assertThat(sim.traceparents()).containsExactly(TRACEPARENT);

        sim.reset();
        assertThat(sim.calls()).isEmpty();
    }

    @Test
    void logsCarryNoNumberOrAddress() {
        List<String> log = new CopyOnWriteArrayList<>();
        try (ProfielserviceSimulator own = ProfielserviceSimulator.start(ProfielserviceSimulator.Config.builder()
                .fscGrantHash(ProfielserviceSimulator.DEV_FSC_GRANT_HASH)
                .log(log::add)
                .build())) {
            own.register(Party.kvk("12345678").email("iemand@voorbeeldbedrijf.nl", Scope.of(DEV_DV_1)));
            List<String> numbers = List.of(
                    ProfielserviceSimulator.KVK_DELIVERED,
                    ProfielserviceSimulator.KVK_UNKNOWN,
                    ProfielserviceSimulator.KVK_DELETED,
                    "12345678",
                    ProfielserviceSimulator.BSN_DELIVERED);
            for (String nummer : numbers) {
                fsc(new SimulatorHttp.Call(root(own), ProfielserviceSimulator.PARTIJ_PATH)
                                .body(body(nummer.length() == 9 ? "BSN" : "KVK", nummer, DEV_DV_1, DIENST_MELDINGEN)))
                        .send();
            }
            fsc(new SimulatorHttp.Call(root(own), ProfielserviceSimulator.PARTIJ_PATH)
                            .body(
                                    "{\"identificatieType\":\"KVK\",\"identificatieNummer\":\"12345670\\n\",\"iemand@voorbeeldbedrijf.nl\":1}"))
                    .send();
            fsc(new SimulatorHttp.Call(root(own), ProfielserviceSimulator.PARTIJ_PATH)
                            .body("{\"identificatieType\":\"12345670\"}"))
                    .send();
            new SimulatorHttp.Call(root(own), ProfielserviceSimulator.PARTIJ_PATH)
                    .body(body("KVK", "12345678", null, null))
                    .header("Fsc-Grant-Hash", "12345678")
                    .send();
            fsc(new SimulatorHttp.Call(root(own), ProfielserviceSimulator.CONTACTGEGEVEN_PATH + "/12345678")
                            .method("DELETE")
                            .body(identificatie("KVK", "12345678")))
                    .send();
            fsc(new SimulatorHttp.Call(
                                    root(own),
                                    ProfielserviceSimulator.CONTACTGEGEVEN_PATH + "/"
                                            + own.register(Party.kvk("12345678").email("iemand@voorbeeldbedrijf.nl"))
                                                    .contact("iemand@voorbeeldbedrijf.nl")
                                                    .id())
                            .method("DELETE")
                            .body(identificatie("KVK", "12345678")))
                    .send();
            new SimulatorHttp.Call(root(own), "/elders/12345678/iemand@voorbeeldbedrijf.nl")
                    .body("{}")
                    .send();
        }

        assertThat(log).hasSizeGreaterThanOrEqualTo(11);
        assertThat(log).anySatisfy(line -> assertThat(line).contains("POST /partij 404"));
        assertThat(log).anySatisfy(line -> assertThat(line).contains("violations=identificatieNummer"));
        assertThat(log)
                .anySatisfy(line ->
                        assertThat(line).contains("fsc-error-code=" + ProfielserviceSimulator.FSC_UNKNOWN_GRANT_HASH));
        assertThat(log)
                .anySatisfy(
                        line -> assertThat(line).contains("partij soft-deleted").contains("fsc-transaction-id="));
        assertNoPersonalData(log);
    }

    // --- FSC ---------------------------------------------------------------------------------------------------

    @Nested
    class WithFsc {

        private static final String GRANT_HASH = "$1$4$k4rwlWTsCM_j89Fc3nrbnQa9-KB43";
        private ProfielserviceSimulator outway;

        @org.junit.jupiter.api.BeforeEach
        void startWithFsc() {
            outway = ProfielserviceSimulator.start(ProfielserviceSimulator.Config.builder()
                    .fscGrantHash(GRANT_HASH)
                    .log(LOG::add)
                    .build());
        }

        @AfterEach
        void stop() {
            outway.close();
        }

        private SimulatorHttp.Call lookup() {
            return new SimulatorHttp.Call(root(outway), ProfielserviceSimulator.PARTIJ_PATH)
                    .body(body("KVK", ProfielserviceSimulator.KVK_DELIVERED, null, null));
        }

        @Test
        void theRightGrantHashAndAUuidV7PassAndTheTransactionIdComesBack() {
            String transactionId = uuidV7().toString();
            SimulatorHttp.Call call =
                    lookup().header("Fsc-Grant-Hash", GRANT_HASH).header("Fsc-Transaction-Id", transactionId);

            SimulatorHttp.Response response = CONTRACT.conforming(call, call.send());

            assertThat(response.status()).isEqualTo(200);
            assertThat(response.header("Fsc-Transaction-Id")).contains(transactionId);
            assertThat(response.header("Fsc-Error-Code")).isEmpty();
        }

        static Stream<Arguments> refusals() {
            String v4 = UUID.randomUUID().toString();
            return Stream.of(
                    Arguments.of(null, null, ProfielserviceSimulator.FSC_GRANT_HASH_MISSING),
                    Arguments.of(" ", uuidV7().toString(), ProfielserviceSimulator.FSC_GRANT_HASH_MISSING),
                    Arguments.of("$1$4$other", uuidV7().toString(), ProfielserviceSimulator.FSC_UNKNOWN_GRANT_HASH),
                    Arguments.of(
                            GRANT_HASH.toUpperCase(),
                            uuidV7().toString(),
                            ProfielserviceSimulator.FSC_UNKNOWN_GRANT_HASH),
                    Arguments.of(GRANT_HASH, null, ProfielserviceSimulator.FSC_TRANSACTION_ID_MISSING),
                    Arguments.of(GRANT_HASH, v4, ProfielserviceSimulator.FSC_TRANSACTION_ID_INVALID),
                    Arguments.of(GRANT_HASH, "not-a-uuid", ProfielserviceSimulator.FSC_TRANSACTION_ID_INVALID),
                    Arguments.of(
                            GRANT_HASH,
                            uuidV7().toString().replace("-", ""),
                            ProfielserviceSimulator.FSC_TRANSACTION_ID_INVALID),
                    Arguments.of(
                            GRANT_HASH,
                            withVariant(uuidV7(), 0xC),
                            ProfielserviceSimulator.FSC_TRANSACTION_ID_INVALID));
        }

        @ParameterizedTest
        @MethodSource("refusals")
        void anotherGrantHashOrTransactionIdIsTheOutwaysError(String grantHash, String transactionId, String code) {
            SimulatorHttp.Response response = lookup().header("Fsc-Grant-Hash", grantHash)
                    .header("Fsc-Transaction-Id", transactionId)
                    .send();

            assertThat(response.status()).isEqualTo(400);
            assertThat(response.header("Fsc-Error-Code")).contains(code);
            assertThat(response.header("Content-Type")).contains("application/json");
            assertThat(response.header("API-Version"))
                    .as("the Outway's answer, not the service's")
                    .isEmpty();
            assertThat(response.json().path("code").asText()).isEqualTo(code);
            assertThat(response.json().path("domain").asText()).isEqualTo("ERROR_DOMAIN_OUTWAY");
            assertThat(response.json().path("message").asText()).isNotBlank();
            assertThat(response.body()).doesNotContain("k4rwl", "other", "not-a-uuid");
            assertThat(outway.calls()).singleElement().satisfies(call -> {
                assertThat(call.status()).isEqualTo(400);
                assertThat(
                                call.fscGrantHash() == null
                                        ? null
                                        : call.fscGrantHash().strip())
                        .isEqualTo(grantHash == null ? null : grantHash.strip());
            });
        }

        @Test
        void aRefusedDeleteDoesNotReachTheService() {
            UUID id = outway.register(Party.kvk("12345678").email("weg@b.nl").email("blijft@b.nl"))
                    .contact("weg@b.nl")
                    .id();
            SimulatorHttp.Call delete = new SimulatorHttp.Call(
                            root(outway), ProfielserviceSimulator.CONTACTGEGEVEN_PATH + "/" + id)
                    .method("DELETE")
                    .body(identificatie("KVK", "12345678"));

            assertThat(delete.header("Fsc-Grant-Hash", GRANT_HASH).send().status())
                    .isEqualTo(400);
            assertThat(outway.deletes()).isEmpty();

            assertThat(delete.header("Fsc-Transaction-Id", uuidV7().toString())
                            .send()
                            .status())
                    .isEqualTo(204);
            assertThat(outway.deletes())
                    .singleElement()
                    .extracting(ProfielserviceSimulator.Delete::status)
                    .isEqualTo(204);
        }
    }

    @Test
    void withoutFscTheHeadersAreOnlyRecorded() {
        SimulatorHttp.Response response = partijCall(body("KVK", ProfielserviceSimulator.KVK_DELIVERED, null, null))
                .header("Fsc-Transaction-Id", "not-a-uuid")
                .send();

        assertThat(response.status()).isEqualTo(200);
        assertThat(response.header("Fsc-Transaction-Id")).isEmpty();
        assertThat(sim.calls())
                .singleElement()
                .extracting(ProfielserviceSimulator.Call::fscTransactionId)
                .isEqualTo("not-a-uuid");
    }

    @Test
    void theConfigRefusesAGrantHashTheContractCannotCarry() {
        assertThatThrownBy(() -> ProfielserviceSimulator.Config.builder()
                        .fscGrantHash("met spatie")
                        .build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ProfielserviceSimulator.Config.builder()
                        .fscGrantHash("")
                        .build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(ProfielserviceSimulator.Config.builder()
                        .fscGrantHash(ProfielserviceSimulator.DEV_FSC_GRANT_HASH)
                        .build()
                        .toString())
                .doesNotContain("$1$");
        assertThat(sim.baseUrl()).isEqualTo("http://127.0.0.1:" + sim.port());
    }

    // --- faults on top -------------------------------------------------------------------------------------

    @Test
    void aPriorityOneOutageWinsUntilReset() {
        stubPartij(ProfielserviceSimulator.serverError());

        SimulatorHttp.Call call = partijCall(body("KVK", ProfielserviceSimulator.KVK_DELIVERED, null, null));
        SimulatorHttp.Response error = CONTRACT.conforming(call, call.send());
        assertThat(error.status()).isEqualTo(500);
        assertThat(error.json().path("detail").asText()).isEqualTo("Er is een onverwachte fout opgetreden");
        assertThat(sim.calls()).as("the outage answered, not the simulator").isEmpty();

        sim.reset();
        assertThat(call.send().status()).isEqualTo(200);
    }

    @Test
    void theFaultHelpersAnswerWhatTheySay() {
        stubPartij(ProfielserviceSimulator.unavailable());
        assertThat(lookupDelivered().status()).isEqualTo(503);

        stubPartij(ProfielserviceSimulator.tooManyRequests(30));
        SimulatorHttp.Response tooMany = lookupDelivered();
        assertThat(tooMany.status()).isEqualTo(429);
        assertThat(tooMany.header("Retry-After")).contains("30");

        stubPartij(ProfielserviceSimulator.garbage());
        SimulatorHttp.Response garbage = lookupDelivered();
        assertThat(garbage.status()).isEqualTo(200);
        assertThatThrownBy(garbage::json).isInstanceOf(UncheckedIOException.class);

        stubPartij(ProfielserviceSimulator.withoutContactgegevens());
        SimulatorHttp.Call call = partijCall(body("KVK", ProfielserviceSimulator.KVK_DELIVERED, null, null));
        SimulatorHttp.Response without = call.send();
        assertThat(without.status()).isEqualTo(200);
        assertThat(without.json().has("contactgegevens")).isFalse();
        assertThat(CONTRACT.responseErrors(call, without))
                .as("the contract requires contactgegevens")
                .isNotEmpty();

        stubPartij(ProfielserviceSimulator.manyEntries(ProfielserviceSimulator.TEN_THOUSAND));
        SimulatorHttp.Response many = CONTRACT.conforming(call, call.send());
        assertThat(many.json().path("contactgegevens")).hasSize(10_000);
        assertThat(pick(many.json(), DEV_DV_1, DIENST_MELDINGEN, true)).isEmpty();

        stubPartij(ProfielserviceSimulator.notFoundAsHtml());
        SimulatorHttp.Response html = lookupDelivered();
        assertThat(html.status()).isEqualTo(404);
        assertThat(html.header("Content-Type"))
                .hasValueSatisfying(type -> assertThat(type).startsWith("text/html"));

        stubPartij(ProfielserviceSimulator.notFoundWithTitle("Not Found"));
        SimulatorHttp.Response otherTitle = CONTRACT.conforming(call, call.send());
        assertThat(otherTitle.json().path("title").asText()).isEqualTo("Not Found");

        stubPartij(ProfielserviceSimulator.connectionReset());
        assertThatThrownBy(ProfielserviceSimulatorTest::lookupDelivered).isInstanceOf(UncheckedIOException.class);
    }

    @Test
    void aSlowDripKeepsTheSimulatorsAnswer() {
        stubPartij(ProfielserviceSimulator.slowDrip(Duration.ofMillis(600)));
        long start = System.nanoTime();

        SimulatorHttp.Response response = lookupDelivered();

        assertThat(response.status()).isEqualTo(200);
        assertThat(emails(response.json())).containsExactly(ProfielserviceSimulator.DEV_EMAILADRES);
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(500_000_000L);
    }

    @Test
    void anUnfilteredAnswerListsEntriesOfOtherDvsWhichTheRuleNeverPicks() {
        stubPartij(ProfielserviceSimulator.unfiltered());

        JsonNode otherDvOnly = partij("KVK", ProfielserviceSimulator.KVK_OTHER_DV_ONLY, DEV_DV_1, DIENST_MELDINGEN)
                .json();
        JsonNode unscoped = partij("KVK", ProfielserviceSimulator.KVK_UNSCOPED, DEV_DV_1, DIENST_MELDINGEN)
                .json();
        JsonNode allTiers = partij("KVK", ProfielserviceSimulator.KVK_SCOPE_DIENST, TEST_DV_A, DIENST_MELDINGEN)
                .json();

        assertThat(emails(otherDvOnly)).containsExactly("provincie@andere-dv.nl", "provincie-meldingen@andere-dv.nl");
        assertThat(pick(otherDvOnly, DEV_DV_1, DIENST_MELDINGEN, true)).isEmpty();
        assertThat(emails(unscoped)).containsExactly("provincie@ongescoped.nl", "ongescoped@ongescoped.nl");
        assertThat(pick(unscoped, DEV_DV_1, DIENST_MELDINGEN, false)).contains("ongescoped@ongescoped.nl");
        assertThat(emails(allTiers)).hasSize(7);
        assertThat(pick(allTiers, TEST_DV_A, DIENST_MELDINGEN, false)).contains("standaard@alle-niveaus.nl");
    }

    @Test
    void aFaultStubNamingTheDeleteTransformerDeletesButTheCallerSeesNoAnswer() {
        sim.wireMock()
                .stubFor(delete(urlPathMatching(ProfielserviceSimulator.CONTACTGEGEVEN_PATH + "/.*"))
                        .atPriority(1)
                        .willReturn(aResponse()
                                .withTransformers(ProfielserviceSimulator.DELETE_TRANSFORMER)
                                .withFault(Fault.CONNECTION_RESET_BY_PEER)));
        UUID id = contactId("KVK", ProfielserviceSimulator.KVK_PERM_FAIL, NotifyNlSimulator.PERM_FAIL_ADDRESS);

        assertThatThrownBy(() -> deleteCall(id, identificatie("KVK", ProfielserviceSimulator.KVK_PERM_FAIL))
                        .send())
                .isInstanceOf(UncheckedIOException.class);

        assertThat(sim.deletes())
                .singleElement()
                .extracting(ProfielserviceSimulator.Delete::status)
                .isEqualTo(204);
        assertThat(partij("KVK", ProfielserviceSimulator.KVK_PERM_FAIL, null, null)
                        .status())
                .isEqualTo(404);
    }

    // --- helpers -------------------------------------------------------------------------------------------

    /**
     * The NMC's choice rule as the dev table states it, to check the table (not the NMC's code): only verified
     * {@code Email} (unless allowed), then (1) a scope of this DV with this dienst, (2) a scope of this DV without
     * a dienst, (3) default and unscoped, (4) unscoped; ties by latest {@code lastUpdated}; otherwise never.
     */
    static Optional<String> pick(JsonNode answer, String dienstverlener, String dienstNaam, boolean unverified) {
        record Candidate(String waarde, int tier, Instant lastUpdated) {}
        List<Candidate> candidates = new ArrayList<>();
        for (JsonNode entry : answer.path("contactgegevens")) {
            if (!entry.path("type").asText().equals("Email")
                    || (!unverified && !entry.path("isGeverifieerd").asBoolean())) {
                continue;
            }
            int tier = Integer.MAX_VALUE;
            if (entry.path("scopes").isEmpty()) {
                tier = entry.path("isDefault").asBoolean() ? 3 : 4;
            }
            for (JsonNode scope : entry.path("scopes")) {
                if (!scope.path("dienstverlenerNaam").asText().equalsIgnoreCase(dienstverlener)) {
                    continue;
                }
                if (scope.path("dienstNaam").isNull()) {
                    tier = Math.min(tier, 2);
                } else if (dienstNaam != null
                        && scope.path("dienstNaam").asText().equalsIgnoreCase(dienstNaam)) {
                    tier = 1;
                }
            }
            if (tier != Integer.MAX_VALUE) {
                candidates.add(new Candidate(
                        entry.path("waarde").asText(),
                        tier,
                        Instant.parse(entry.path("lastUpdated").asText())));
            }
        }
        return candidates.stream()
                .min(Comparator.comparingInt(Candidate::tier)
                        .thenComparing(Candidate::lastUpdated, Comparator.reverseOrder()))
                .map(Candidate::waarde);
    }

    private static boolean elfproef(String nummer) {
        int sum = 0;
        for (int i = 0; i < 9; i++) {
            int weight = i == 8 ? -1 : 9 - i;
            sum += (nummer.charAt(i) - '0') * weight;
        }
        return nummer.length() == 9 && sum > 0 && sum % 11 == 0;
    }

    private static final SecureRandom RANDOM = new SecureRandom();

    /** A UUIDv7 as RFC 9562 §5.7 builds it: 48 bits of Unix milliseconds, version 7, random bits, variant 10. */
    static UUID uuidV7() {
        long most = (System.currentTimeMillis() << 16) | 0x7000L | (RANDOM.nextInt() & 0x0FFFL);
        long least = (RANDOM.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        return new UUID(most, least);
    }

    private static String withVariant(UUID uuid, int variantNibble) {
        String text = uuid.toString();
        return text.substring(0, 19) + Integer.toHexString(variantNibble) + text.substring(20);
    }

    private static void assertNoPersonalData(List<String> log) {
        Pattern number = Pattern.compile("(?<![0-9a-fA-F-])[0-9]{8,9}(?![0-9a-fA-F-])");
        assertThat(log).allSatisfy(line -> {
            assertThat(line).doesNotContain("@", "12345670", "12345678", "99999999", "999993653", "0612345678");
            assertThat(number.matcher(line).find()).as("a number in: " + line).isFalse();
        });
    }

    private static void assertServiceHeaders(SimulatorHttp.Response response) {
        assertThat(response.header("API-Version")).contains("1.0.0");
        assertThat(response.header("Cache-Control")).contains("no-store");
        assertThat(response.header("Content-Security-Policy")).contains("frame-ancestors 'none'");
        assertThat(response.header("Strict-Transport-Security")).contains("max-age=31536000; includeSubDomains");
        assertThat(response.header("X-Content-Type-Options")).contains("nosniff");
        assertThat(response.header("X-Frame-Options")).contains("DENY");
        assertThat(response.header("Referrer-Policy")).contains("no-referrer");
    }

    private static void assertBadRequest(SimulatorHttp.Response response, String detail) {
        assertThat(response.status()).as(response.body()).isEqualTo(400);
        assertThat(response.header("Content-Type")).contains("application/problem+json");
        assertServiceHeaders(response);
        assertThat(response.json().has("type")).isFalse();
        assertThat(response.json().path("title").asText()).isEqualTo("Bad Request");
        assertThat(response.json().path("status").asInt()).isEqualTo(400);
        assertThat(response.json().path("detail").asText()).isEqualTo(detail);
    }

    private static void stubPartij(com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder answer) {
        sim.wireMock()
                .stubFor(post(urlPathEqualTo(ProfielserviceSimulator.PARTIJ_PATH))
                        .atPriority(1)
                        .willReturn(answer));
    }

    private static SimulatorHttp.Response lookupDelivered() {
        return partijCall(body("KVK", ProfielserviceSimulator.KVK_DELIVERED, null, null))
                .send();
    }

    private static String root(ProfielserviceSimulator simulator) {
        return simulator.baseUrl();
    }

    private static SimulatorHttp.Call fsc(SimulatorHttp.Call call) {
        return call.header("Fsc-Grant-Hash", ProfielserviceSimulator.DEV_FSC_GRANT_HASH)
                .header("Fsc-Transaction-Id", uuidV7().toString());
    }

    private static String body(String type, String nummer, String dienstverlener, String dienstNaam) {
        ObjectNode body = SimulatorHttp.JSON
                .createObjectNode()
                .put("identificatieType", type)
                .put("identificatieNummer", nummer);
        if (dienstverlener != null) {
            body.put("dienstverlener", dienstverlener);
        }
        if (dienstNaam != null) {
            body.put("dienstNaam", dienstNaam);
        }
        return body.toString();
    }

    private static String identificatie(String type, String nummer) {
        return body(type, nummer, null, null);
    }

    private static SimulatorHttp.Call partijCall(String body) {
        return new SimulatorHttp.Call(root(sim), ProfielserviceSimulator.PARTIJ_PATH).body(body);
    }

    /** A lookup checked by the independent validator: the request, and the answer against the contract. */
    private static SimulatorHttp.Response partij(String type, String nummer, String dienstverlener, String dienstNaam) {
        SimulatorHttp.Call call =
                partijCall(body(type, nummer, dienstverlener, dienstNaam)).header("traceparent", TRACEPARENT);
        assertThat(CONTRACT.requestErrors(call)).isEmpty();
        return CONTRACT.conforming(call, call.send());
    }

    private static SimulatorHttp.Call deleteCall(UUID id, String body) {
        return new SimulatorHttp.Call(root(sim), ProfielserviceSimulator.CONTACTGEGEVEN_PATH + "/" + id)
                .method("DELETE")
                .body(body);
    }

    /** A delete checked by the independent validator, request and answer. */
    private static SimulatorHttp.Response deleteContact(UUID id, String type, String nummer) {
        SimulatorHttp.Call call =
                deleteCall(id, identificatie(type, nummer)).header("Accept", "application/problem+json");
        assertThat(CONTRACT.requestErrors(call)).isEmpty();
        return CONTRACT.conforming(call, call.send());
    }

    private static UUID contactId(String type, String nummer, String waarde) {
        return UUID.fromString(entry(partij(type, nummer, null, null).json(), waarde)
                .path("id")
                .asText());
    }

    private static JsonNode entry(JsonNode body, String waarde) {
        for (JsonNode entry : body.path("contactgegevens")) {
            if (entry.path("waarde").asText().equals(waarde)) {
                return entry;
            }
        }
        throw new AssertionError("no entry with that value");
    }

    private static List<String> values(JsonNode body) {
        return StreamSupport.stream(body.path("contactgegevens").spliterator(), false)
                .map(entry -> entry.path("waarde").asText())
                .toList();
    }

    private static List<String> emails(JsonNode body) {
        return StreamSupport.stream(body.path("contactgegevens").spliterator(), false)
                .filter(entry -> entry.path("type").asText().equals("Email"))
                .map(entry -> entry.path("waarde").asText())
                .toList();
    }
}
