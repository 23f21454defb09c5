package nl.overheid.moz.nmc.simulator;

import static nl.overheid.moz.nmc.simulator.ProfielserviceSimulator.DEV_DV_1;
import static nl.overheid.moz.nmc.simulator.ProfielserviceSimulator.DEV_DV_2;
import static nl.overheid.moz.nmc.simulator.ProfielserviceSimulator.DIENST_MELDINGEN;
import static nl.overheid.moz.nmc.simulator.ProfielserviceSimulator.DIENST_VERGUNNINGEN;
import static nl.overheid.moz.nmc.simulator.ProfielserviceSimulator.TEST_DV_A;
import static nl.overheid.moz.nmc.simulator.ProfielserviceSimulator.TEST_DV_B;

import java.time.Instant;
import java.util.List;

/**
 * The dev data of the {@link ProfielserviceSimulator}: one party per branch of the NMC's choice rule, described
 * row by row in the simulator's class Javadoc and in {@code conformance-tests/simulators/PROFIELSERVICE-DEV-DATA.md}
 * (keep the three in step). Entries are listed so that the one the rule picks is never simply the first, and a
 * winner in a higher tier is older ({@code lastUpdated}) than the losers below it, so that neither list order
 * nor recency alone gets the pick right. Ids are derived from a fixed seed per party, so they survive restarts.
 */
final class ProfielDevData {

    private static final Instant JAN_2025 = Instant.parse("2025-01-15T08:00:00Z");
    private static final Instant JUN_2025 = Instant.parse("2025-06-01T08:00:00Z");
    private static final Instant SEP_2025 = Instant.parse("2025-09-01T08:00:00Z");
    private static final Instant JAN_2026 = Instant.parse("2026-01-10T08:00:00Z");
    private static final Instant FEB_2026 = Instant.parse("2026-02-01T08:00:00Z");
    private static final Instant MAR_2026 = Instant.parse("2026-03-01T08:00:00Z");

    private ProfielDevData() {}

    static List<Party> parties() {
        return List.of(
                Party.kvk(ProfielserviceSimulator.KVK_DELIVERED)
                        .idSeed("delivered")
                        .email(ProfielserviceSimulator.DEV_EMAILADRES)
                        .build(),
                Party.kvk(ProfielserviceSimulator.KVK_PERM_FAIL)
                        .idSeed("perm-fail")
                        .email(NotifyNlSimulator.PERM_FAIL_ADDRESS)
                        .build(),
                Party.kvk(ProfielserviceSimulator.KVK_TEMP_FAIL)
                        .idSeed("temp-fail")
                        .email(NotifyNlSimulator.TEMP_FAIL_ADDRESS)
                        .build(),
                Party.kvk(ProfielserviceSimulator.KVK_NO_EMAIL)
                        .idSeed("no-email")
                        .phone("0612345678")
                        .asDefault()
                        .applicatieId("app-7f3e9a", Scope.of(DEV_DV_1, DIENST_MELDINGEN))
                        .build(),
                Party.kvk(ProfielserviceSimulator.KVK_SCOPE_DIENST)
                        .idSeed("scope-dienst")
                        .email("algemeen@alle-niveaus.nl")
                        .lastUpdated(MAR_2026)
                        .email("standaard@alle-niveaus.nl")
                        .asDefault()
                        .lastUpdated(FEB_2026)
                        .email("gemeente@alle-niveaus.nl", Scope.of(DEV_DV_1))
                        .lastUpdated(JAN_2026)
                        .email("meldingen@alle-niveaus.nl", Scope.of(DEV_DV_1, DIENST_MELDINGEN))
                        .lastUpdated(JUN_2025)
                        .email("vergunningen@alle-niveaus.nl", Scope.of(DEV_DV_1, DIENST_VERGUNNINGEN))
                        .lastUpdated(MAR_2026)
                        .email("provincie@alle-niveaus.nl", Scope.of(DEV_DV_2, DIENST_MELDINGEN))
                        .lastUpdated(MAR_2026)
                        .email("dvb@alle-niveaus.nl", Scope.of(TEST_DV_B, DIENST_MELDINGEN))
                        .lastUpdated(MAR_2026)
                        .build(),
                Party.kvk(ProfielserviceSimulator.KVK_SCOPE_DV)
                        .idSeed("scope-dv")
                        .email("standaard@dv-breed.nl")
                        .asDefault()
                        .lastUpdated(MAR_2026)
                        .email("algemeen@dv-breed.nl")
                        .lastUpdated(FEB_2026)
                        .email("vergunningen@dv-breed.nl", Scope.of(DEV_DV_1, DIENST_VERGUNNINGEN))
                        .lastUpdated(MAR_2026)
                        .email("gemeente@dv-breed.nl", Scope.of(DEV_DV_1))
                        .lastUpdated(JUN_2025)
                        .email("dva@dv-breed.nl", Scope.of(TEST_DV_A))
                        .lastUpdated(JUN_2025)
                        .build(),
                Party.kvk(ProfielserviceSimulator.KVK_DEFAULT)
                        .idSeed("default")
                        .email("algemeen@standaard.nl")
                        .lastUpdated(MAR_2026)
                        .email("provincie@standaard.nl", Scope.of(DEV_DV_2))
                        .lastUpdated(MAR_2026)
                        .email("standaard@standaard.nl")
                        .asDefault()
                        .lastUpdated(JUN_2025)
                        .build(),
                Party.kvk(ProfielserviceSimulator.KVK_UNSCOPED)
                        .idSeed("unscoped")
                        .email("provincie@ongescoped.nl", Scope.of(DEV_DV_2))
                        .asDefault()
                        .lastUpdated(MAR_2026)
                        .email("ongescoped@ongescoped.nl")
                        .lastUpdated(JUN_2025)
                        .build(),
                Party.kvk(ProfielserviceSimulator.KVK_TIE)
                        .idSeed("tie")
                        .email("eerder@gelijkspel.nl", Scope.of(DEV_DV_1, DIENST_MELDINGEN))
                        .createdAt(FEB_2026)
                        .lastUpdated(FEB_2026)
                        .email("later@gelijkspel.nl", Scope.of(DEV_DV_1, DIENST_MELDINGEN))
                        .createdAt(JAN_2025)
                        .lastUpdated(MAR_2026)
                        .email("oudst@gelijkspel.nl", Scope.of(DEV_DV_1, DIENST_MELDINGEN))
                        .createdAt(JAN_2026)
                        .lastUpdated(JAN_2026)
                        .email("algemeen-oud@gelijkspel.nl")
                        .createdAt(JUN_2025)
                        .lastUpdated(JUN_2025)
                        .email("algemeen-nieuw@gelijkspel.nl")
                        .createdAt(JAN_2025)
                        .lastUpdated(SEP_2025)
                        .build(),
                Party.kvk(ProfielserviceSimulator.KVK_UNVERIFIED_ONLY)
                        .idSeed("unverified-only")
                        .email("onbevestigd@ongeverifieerd.nl")
                        .asDefault()
                        .verified(false)
                        .phone("0687654321")
                        .build(),
                Party.kvk(ProfielserviceSimulator.KVK_UNVERIFIED_SKIPPED)
                        .idSeed("unverified-skipped")
                        .email("ook-onbevestigd@overgeslagen.nl")
                        .verified(false)
                        .lastUpdated(MAR_2026)
                        .email("onbevestigd-standaard@overgeslagen.nl")
                        .asDefault()
                        .verified(false)
                        .lastUpdated(MAR_2026)
                        .email("onbevestigd@overgeslagen.nl", Scope.of(DEV_DV_1, DIENST_MELDINGEN))
                        .verified(false)
                        .lastUpdated(MAR_2026)
                        .email("bevestigd@overgeslagen.nl")
                        .lastUpdated(JUN_2025)
                        .build(),
                Party.kvk(ProfielserviceSimulator.KVK_OTHER_DV_ONLY)
                        .idSeed("other-dv-only")
                        .email("provincie@andere-dv.nl", Scope.of(DEV_DV_2))
                        .asDefault()
                        .email("provincie-meldingen@andere-dv.nl", Scope.of(DEV_DV_2, DIENST_MELDINGEN))
                        .build(),
                Party.kvk(ProfielserviceSimulator.KVK_VOORKEUR_ONLY)
                        .idSeed("voorkeur-only")
                        .voorkeur(Party.VoorkeurType.WebsiteTaal, "nl")
                        .build(),
                Party.kvk(ProfielserviceSimulator.KVK_DELETED)
                        .idSeed("deleted")
                        .email("verwijderd@voorbeeldbedrijf.nl")
                        .deleted()
                        .build(),
                Party.rsin(ProfielserviceSimulator.RSIN_DELIVERED)
                        .idSeed("rsin")
                        .email("info@voorbeeldstichting.nl")
                        .build(),
                Party.bsn(ProfielserviceSimulator.BSN_DELIVERED)
                        .idSeed("bsn")
                        .email("burger@voorbeeldpersoon.nl")
                        .asDefault()
                        .build());
    }
}
