package nl.overheid.moz.nmc.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.client.WireMock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import nl.overheid.moz.nmc.Nmc;
import nl.overheid.moz.nmc.engine.TaskKind;
import nl.overheid.moz.nmc.retention.PepperCompromises;
import nl.overheid.moz.nmc.testing.Http;
import nl.overheid.moz.nmc.testing.ManualRunner;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.Test;

/**
 * The privacy lifecycle (design §9, §10) through the running NMC on a clock the test moves: erasure a fixed
 * period after the terminal status and what an erased notification still does, deletion after the
 * delivery-proof retention with a clock years ahead, KEK rotation under load, and pepper versions marked
 * compromised.
 */
class PrivacyLifecycleTest extends LifecycleTestBase {

    private static final String KVK = "12345670";
    private static final String KEK_2 = TestNmc.KEK_2;
    private static final String DVREF_PEPPER_2 =
            Base64.getEncoder().encodeToString("test-pepper-two-0123456789abcdef012345".getBytes());

    @Test
    void theDataKeyIsErasedTheErasurePeriodAfterTheTerminalStatusAndNotBefore() {
        UUID id = accept(DV_REF, Map.of("batchId", "zending-2026-12"));
        ManualRunner.of(nmc).runWorkersOnce();
        receipt(id, 1, "permanent-failure");
        assertThat(status(id)).isEqualTo("niet-bezorgbaar:4");
        List<String> ciphertexts = ciphertexts(id);

        String terminal = query("SELECT CAST(terminaal_sinds AS text) FROM notificatie WHERE id = ?", id)
                .getFirst();
        assertThat(erasureTasks(id))
                .as("no task row for the month before the work")
                .isEmpty();

        clock.advance(Duration.ofDays(29));
        eachMinuteOnce();
        assertThat(key(id)).as("not before its period").isEqualTo("key");
        assertThat(query("SELECT batch_id FROM notificatie WHERE id = ?", id)).containsExactly("zending-2026-12");
        assertThat(erasureTasks(id)).isEmpty();

        clock.advance(Duration.ofDays(1).plusMinutes(1));
        ManualRunner.of(nmc).runDutiesOnce();
        assertThat(query("SELECT CAST(due - interval '30 days' AS text) FROM taak WHERE notificatie = ?", id))
                .as("planned by the retention duty, due 30 days after the terminal status")
                .containsExactly(terminal);
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(key(id)).isEqualTo("erased");
        assertThat(query("SELECT ldv_betrokkene IS NULL FROM notificatie WHERE id = ?", id))
                .containsExactly("t");
        // a reference the DV chose, kept in the clear no longer than the data it labels (seed 000: "het NMC bewaart
        // geen door de DV gekozen referentie in platte tekst"; found by reading, it stayed for the row's seven years)
        assertThat(query("SELECT batch_id IS NULL FROM notificatie WHERE id = ?", id))
                .containsExactly("t");
        assertThat(ciphertexts(id))
                .as("the ciphertexts stay; without the key they are noise")
                .isEqualTo(ciphertexts);
        assertThat(query("SELECT count(*) FROM taak WHERE notificatie = ?", id)).containsExactly("0");
        assertThat(status(id)).as("the DV still sees its outcome").isEqualTo("niet-bezorgbaar:4");
    }

    /**
     * Issue 18: a late receipt on a terminal notification that changes nothing (now recorded on its attempt)
     * re-planned its erasure, so a stream of late receipts postponed it for ever. Only a transition plans it.
     */
    @Test
    void aLateReceiptThatChangesNothingDoesNotPostponeTheErasure() {
        UUID id = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        receipt(id, 1, "permanent-failure");
        assertThat(status(id)).isEqualTo("niet-bezorgbaar:4");
        List<String> terminal = query("SELECT CAST(terminaal_sinds AS text) FROM notificatie WHERE id = ?", id);

        clock.advance(Duration.ofDays(10));
        receipt(id, 1, "temporary-failure");

        assertThat(pogingen(id)).as("recorded on its attempt").containsExactly("1:tijdelijk-mislukt");
        assertThat(query("SELECT CAST(terminaal_sinds AS text) FROM notificatie WHERE id = ?", id))
                .as("the erasure's timer stays 30 days after the terminal status")
                .isEqualTo(terminal);
        clock.advance(Duration.ofDays(20).plusMinutes(1));
        eachMinuteOnce();
        assertThat(key(id)).isEqualTo("erased");
    }

    @Test
    void anErasedNotificationThatALateReceiptReopensEndsTechnischMisluktInsteadOfSending() {
        UUID id = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        notify.status(null, null, null); // NotifyNL does not know the attempt
        clock.advance(Duration.ofHours(2));
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).isEqualTo("bezorgstatus-onbekend:4");
        clock.advance(Duration.ofDays(31));
        eachMinuteOnce();
        assertThat(key(id)).isEqualTo("erased");

        receipt(id, 1, "delivered"); // a very late delivery report re-opens it
        assertThat(status(id)).isEqualTo("bezorgd:5");
        clock.advance(Duration.ofHours(1));
        receipt(id, 1, "temporary-failure"); // a bounce within the MEBV period: a resend
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(status(id))
                .as("resend started (7), then ended: nothing to send")
                .isEqualTo("technisch-mislukt:8");
        assertThat(pogingen(id)).containsExactly("1:tijdelijk-mislukt", "2:technisch-mislukt");
        assertThat(notify.server()
                        .findAll(WireMock.postRequestedFor(WireMock.urlPathEqualTo("/v2/notifications/email"))))
                .as("only the first send")
                .hasSize(1);
    }

    @Test
    void anInvalidAddressReportOfAnErasedNotificationIsParkedNotRetriedForever() {
        notify.profiel(KVK, "ondernemer@bedrijf.example");
        UUID id = acceptCentraal(DV_REF, KVK, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        notify.status(null, null, null);
        clock.advance(Duration.ofHours(2));
        ManualRunner.of(nmc).runWorkersOnce();
        clock.advance(Duration.ofDays(31));
        eachMinuteOnce();
        assertThat(key(id)).isEqualTo("erased");
        double parked = http.metric("nmc_ongeldig_melden_parked_total").orElse(0);

        receipt(id, 1, "permanent-failure");
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(status(id)).isEqualTo("niet-bezorgbaar:5");
        assertThat(query(
                        "SELECT status || ':' || laatste_fout FROM taak WHERE notificatie = ? "
                                + "AND soort = 'ongeldig-melden'",
                        id))
                .containsExactly("mislukt:datasleutel-gewist");
        assertThat(http.metric("nmc_ongeldig_melden_parked_total").orElseThrow())
                .isEqualTo(parked + 1);
    }

    @Test
    void yearsLaterEverythingPastItsRetentionIsGoneAndNothingElse() {
        restartWithConfig("retention:\n  notifications: P7Y\n  batch-size: 2\n");
        List<UUID> finished = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            UUID id = accept("OUD-" + i, Map.of());
            ManualRunner.of(nmc).runWorkersOnce();
            receipt(id, 1, "permanent-failure");
            finished.add(id);
        }
        notify.profiel(KVK, "ondernemer@bedrijf.example");
        UUID centraal = acceptCentraal("OUD-C", KVK, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        receipt(centraal, 1, "delivered");
        clock.advance(Duration.ofDays(8));
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(centraal)).isEqualTo("definitief-bezorgd:5");
        finished.add(centraal);

        clock.advance(Duration.ofDays(7 * 366));
        UUID live = accept("NIEUW-1", Map.of()); // accepted now, still on its way
        for (int round = 0; round < 10; round++) {
            ManualRunner.of(nmc).runDutiesOnce();
            ManualRunner.of(nmc).runWorkersOnce();
        }

        for (UUID id : finished) {
            assertThat(query("SELECT count(*) FROM notificatie WHERE id = ?", id))
                    .as("row of " + id)
                    .containsExactly("0");
            assertThat(query("SELECT count(*) FROM taak WHERE notificatie = ?", id))
                    .containsExactly("0");
        }
        assertThat(query(
                        "SELECT count(*) FROM poging p WHERE NOT EXISTS "
                                + "(SELECT 1 FROM notificatie n WHERE n.id = p.notificatie)",
                        null))
                .containsExactly("0");
        assertThat(query("SELECT count(*) FROM ontvangst", null))
                .as("receipts went with their attempts")
                .containsExactly("0");
        assertThat(key(live)).as("a live notification keeps its key").isEqualTo("key");
        assertThat(status(live)).startsWith("verzonden");
        assertThat(query("SELECT count(*) FROM dienstverlener", null)).containsExactly("3");
        // No ciphertext anywhere whose key still exists past its erasure period.
        assertThat(query(
                        "SELECT count(*) FROM notificatie WHERE datasleutel_gewrapt IS NOT NULL "
                                + "AND terminaal_sinds < now() - interval '30 days'",
                        null))
                .containsExactly("0");
    }

    @Test
    void anotherKekVersionRewrapsEveryDataKeyUnderLoadWithoutTouchingACiphertext() throws Exception {
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            ids.add(accept("KEK-" + i, Map.of()));
        }
        Map<UUID, List<String>> before = new java.util.HashMap<>();
        ids.forEach(id -> before.put(id, ciphertexts(id)));
        restartWithKekTwo(4);

        AtomicBoolean sending = new AtomicBoolean(true);
        Thread load = Thread.ofVirtual().start(() -> {
            while (sending.get()) {
                ManualRunner.of(nmc).runWorkerOnce(TaskKind.VERZENDEN);
            }
        });
        for (int round = 0; round < 20; round++) {
            ManualRunner.of(nmc).runDutiesOnce();
        }
        sending.set(false);
        load.join();
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(query("SELECT kek_versie || ':' || count(*) FROM notificatie GROUP BY kek_versie", null))
                .containsExactly("2:30");
        ids.forEach(id -> {
            assertThat(ciphertexts(id)).as("not re-encrypted").isEqualTo(before.get(id));
            assertThat(status(id)).as("every notification still sends").startsWith("verzonden");
        });
        assertThat(http.metric("nmc_kek_rows", "versie=\"1\"").orElseThrow()).isZero();
        assertThat(http.metric("nmc_kek_rows", "versie=\"2\"").orElseThrow()).isEqualTo(30);

        // Version 1 can go now; had a row still used it, the NMC would not start without it.
        nmc.close();
        nmc = startWithoutKekOne();
        http = Http.of(nmc);
        assertThat(status(ids.getFirst())).startsWith("verzonden");
    }

    /**
     * One data key that no longer unwraps (damaged on disk, or restored from the wrong backup) used to roll back
     * the re-wrap's whole batch every round, so no other row ever moved and the old KEK could never go. It is
     * skipped and counted ({@code nmc_kek_rows_unreadable}); the others move.
     */
    @Test
    void aDataKeyThatDoesNotUnwrapIsSkippedAndCountedWhileTheOthersAreRewrapped() {
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            ids.add(accept("KEK-KAPOT-" + i, Map.of()));
        }
        UUID damaged = ids.getFirst();
        String intact = query("SELECT encode(datasleutel_gewrapt, 'hex') FROM notificatie WHERE id = ?", damaged)
                .getFirst();
        sql("UPDATE notificatie SET datasleutel_gewrapt = set_byte(datasleutel_gewrapt, 0,"
                + " get_byte(datasleutel_gewrapt, 0) # 1) WHERE id = '" + damaged + "'");
        restartWithKekTwo(2);

        for (int round = 0; round < 3; round++) {
            ManualRunner.of(nmc).runDutiesOnce();
        }

        assertThat(query("SELECT kek_versie || ':' || count(*) FROM notificatie GROUP BY kek_versie ORDER BY 1", null))
                .containsExactly("1:1", "2:5");
        assertThat(query("SELECT kek_versie FROM notificatie WHERE id = ?", damaged))
                .containsExactly("1");
        assertThat(http.metric("nmc_kek_rows_unreadable").orElseThrow())
                .as("the operator's signal")
                .isEqualTo(1);
        Http.Response rewrap = rewrapRound("KEK-rotatie");
        assertThat(rewrap.status()).as(rewrap.body()).isEqualTo(200);

        // The operator restores the row from a backup; the next round the operator starts tries it again.
        sql("UPDATE notificatie SET datasleutel_gewrapt = decode('" + intact + "', 'hex') WHERE id = '" + damaged
                + "'");
        ManualRunner.of(nmc).runDutiesOnce();
        assertThat(query("SELECT kek_versie FROM notificatie WHERE id = ?", damaged))
                .as("skipped until asked again")
                .containsExactly("1");
        assertThat(rewrapRound("hersteld uit back-up").status()).isEqualTo(200);
        assertThat(query("SELECT kek_versie || ':' || count(*) FROM notificatie GROUP BY kek_versie", null))
                .containsExactly("2:6");
        assertThat(http.metric("nmc_kek_rows_unreadable").orElseThrow()).isZero();
    }

    /**
     * A rolling deploy that adds a KEK: a new instance seals under version 2 at once, while an instance still on the
     * old configuration claims the send. It does not hold the key, which is neither the notification's fault nor the
     * NMC's own failure: the send is postponed uncounted (it used to count five failures and end technisch-mislukt),
     * and an instance that holds the key sends it.
     */
    @Test
    void aSendSealedUnderAKekThisInstanceDoesNotHoldIsPostponedNotCountedAsFailing() {
        Nmc newer = startAnother(KEK_TWO_CURRENT);
        try {
            Http older = http;
            http = Http.of(newer);
            UUID id = accept("KEK-ROLLING", Map.of());
            http = older;
            assertThat(query("SELECT kek_versie FROM notificatie WHERE id = ?", id))
                    .containsExactly("2");
            for (int round = 0; round < 8; round++) {
                ManualRunner.of(nmc).runWorkerOnce(TaskKind.VERZENDEN);
                clock.advance(Duration.ofMinutes(10));
            }
            assertThat(status(id)).isEqualTo("in-verzending:2");
            assertThat(query("SELECT pogingenteller || ':' || laatste_fout FROM taak WHERE notificatie = ?", id))
                    .containsExactly("0:kek-onbekend");
            assertThat(notify.server().getAllServeEvents())
                    .as("nothing sent without the key")
                    .isEmpty();
            assertThat(nl.overheid.moz.nmc.testing.PrometheusText.parse(
                                    http.get("/observe/metrics", null).body())
                            .value(
                                    "nmc_engine_postponements_total",
                                    Map.of("soort", "verzenden", "partij", "nmc", "fout", "kek-onbekend")))
                    .as("the NMC's own wait, not a NotifyNL outage")
                    .isEqualTo(8);
            // A round of the re-wrap now, as the operator API runs it: a failing round would be a 500.
            Http.Response rewrap = rewrapRound("rolling deploy");
            assertThat(rewrap.status())
                    .as(
                            "the re-wrap of an instance without version 2 leaves its rows alone, and does not fail: %s",
                            rewrap.body())
                    .isEqualTo(200);
            assertThat(query("SELECT kek_versie FROM notificatie WHERE id = ?", id))
                    .containsExactly("2");

            ManualRunner.of(newer).runWorkerOnce(TaskKind.VERZENDEN);
            assertThat(status(id)).isEqualTo("verzonden:3");
        } finally {
            newer.close();
        }
    }

    @Test
    void dataKeysWrappedWithGcmBeforeKeyWrapAreMovedToKeyWrapAndStillSend() throws Exception {
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            ids.add(accept("GCM-" + i, Map.of()));
        }
        assertThat(query("SELECT DISTINCT octet_length(datasleutel_gewrapt) FROM notificatie", null))
                .containsExactly("40");
        // As an earlier version stored them: the same data key wrapped with AES-GCM under KEK 1, bound to the id.
        javax.crypto.SecretKey kek =
                new javax.crypto.spec.SecretKeySpec(Base64.getDecoder().decode(TestNmc.KEK_1), "AES");
        for (UUID id : ids) {
            byte[] wrapped = java.util.HexFormat.of()
                    .parseHex(query("SELECT encode(datasleutel_gewrapt, 'hex') FROM notificatie WHERE id = ?", id)
                            .getFirst());
            javax.crypto.Cipher kw = javax.crypto.Cipher.getInstance("AES/KW/NoPadding");
            kw.init(javax.crypto.Cipher.DECRYPT_MODE, kek);
            byte[] raw = kw.doFinal(wrapped);
            byte[] iv = new byte[12];
            new java.security.SecureRandom().nextBytes(iv);
            javax.crypto.Cipher gcm = javax.crypto.Cipher.getInstance("AES/GCM/NoPadding");
            gcm.init(javax.crypto.Cipher.ENCRYPT_MODE, kek, new javax.crypto.spec.GCMParameterSpec(128, iv));
            gcm.updateAAD((id + "/dek").getBytes(java.nio.charset.StandardCharsets.UTF_8));
            byte[] legacy = java.nio.ByteBuffer.allocate(60)
                    .put(iv)
                    .put(gcm.doFinal(raw))
                    .array();
            sql("UPDATE notificatie SET datasleutel_gewrapt = decode('"
                    + java.util.HexFormat.of().formatHex(legacy) + "', 'hex') WHERE id = '" + id + "'");
        }
        ManualRunner.of(nmc).runWorkerOnce(TaskKind.VERZENDEN);
        assertThat(status(ids.getFirst())).as("a GCM-wrapped key still opens").startsWith("verzonden");

        ManualRunner.of(nmc).runDutiesOnce();

        assertThat(query(
                        "SELECT octet_length(datasleutel_gewrapt) || ':' || kek_versie || ':' || count(*) "
                                + "FROM notificatie GROUP BY octet_length(datasleutel_gewrapt), kek_versie",
                        null))
                .as("every key moved to key wrap under the same version")
                .containsExactly("40:1:6");
        ManualRunner.of(nmc).runWorkersOnce();
        ids.forEach(id ->
                assertThat(status(id)).as("every notification still sends").startsWith("verzonden"));
    }

    @Test
    void withoutAKekVersionThatRowsStillUseTheNmcDoesNotStart() {
        accept(DV_REF, Map.of());
        nmc.close();
        assertThatThrownBy(this::startWithoutKekOne).hasMessageContaining("KEK version 1");
        nmc = startAnother("");
        http = Http.of(nmc);
    }

    /**
     * Before V27 the terminal transition planned the erasure a month ahead; such a task still counts (the duty plans
     * no second one) and a compromised pepper still brings it forward.
     */
    @Test
    void anErasureTaskPlannedAheadByAnEarlierVersionIsKeptAndACompromiseBringsItForward() {
        restartWithConfig(twoDvrefPeppers());
        UUID compromised = terminalWithTaskPlannedAhead("VOORUIT-1");
        List<String> ahead = erasureTasks(compromised);
        nmc.pepperCompromises().markCompromised(PepperCompromises.Purpose.DVREF, 1);
        ManualRunner.of(nmc).runDutiesOnce();
        assertThat(erasureTasks(compromised))
                .as("brought forward, still one")
                .hasSize(1)
                .doesNotContainAnyElementsOf(ahead);
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(key(compromised)).isEqualTo("erased");

        UUID kept = terminalWithTaskPlannedAhead("VOORUIT-2"); // under pepper version 2, not compromised
        clock.advance(Duration.ofDays(30).plusMinutes(1));
        ManualRunner.of(nmc).runDutiesOnce();
        assertThat(erasureTasks(kept))
                .as("no second task beside the one planned ahead")
                .hasSize(1);
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(key(kept)).isEqualTo("erased");
    }

    /** A terminal notification with its erasure task planned as the transition planned it before V27. */
    private UUID terminalWithTaskPlannedAhead(String dvRef) {
        UUID id = accept(dvRef, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        receipt(id, 1, "permanent-failure");
        sql("INSERT INTO taak (soort, dv_id, notificatie, due, trace_id) SELECT 'wissen', dv_id, id,"
                + " terminaal_sinds + interval '30 days', trace_id FROM notificatie WHERE id = '" + id + "'");
        return id;
    }

    @Test
    void aCompromisedPepperVersionIsNoLongerUsedAndItsRowsAreErasedEarlyWhileSearchStillFindsThem() {
        restartWithConfig(twoDvrefPeppers());
        UUID finished = accept("GEHEIM-1", Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        receipt(finished, 1, "permanent-failure");
        UUID live = accept("GEHEIM-2", Map.of());
        assertThat(query("SELECT DISTINCT pepper_versie FROM notificatie", null))
                .containsExactly("1");

        nmc.pepperCompromises().markCompromised(PepperCompromises.Purpose.DVREF, 1);
        UUID after = accept("GEHEIM-3", Map.of());
        assertThat(query("SELECT pepper_versie FROM notificatie WHERE id = ?", after))
                .containsExactly("2");
        ManualRunner.of(nmc).runDutiesOnce();
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(key(finished)).as("erased at once").isEqualTo("erased");
        assertThat(key(live)).as("a live notification is still sent").isEqualTo("key");
        assertThat(status(live)).startsWith("verzonden");
        receipt(live, 1, "delivered");
        clock.advance(Duration.ofDays(8));
        ManualRunner.of(nmc).runWorkersOnce();
        ManualRunner.of(nmc).runDutiesOnce();
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(live)).startsWith("definitief-bezorgd");
        assertThat(key(live)).as("erased as soon as it is terminal").isEqualTo("erased");

        assertThat(http.get("/api/nmc/v1/notificaties?dvRef=GEHEIM-1", tokenA())
                        .json()
                        .path("notificaties"))
                .as("search still finds rows under the compromised version")
                .hasSize(1);
        Http.Response repeat = postDecentraal("GEHEIM-2", Map.of());
        assertThat(repeat.json().path("id").asText())
                .as("a repeat is still recognised")
                .isEqualTo(live.toString());
    }

    @Test
    void theLastUsablePepperVersionCannotBeMarkedCompromised() {
        assertThatThrownBy(() -> nmc.pepperCompromises().markCompromised(PepperCompromises.Purpose.PAYLOAD, 1))
                .isInstanceOf(PepperCompromises.Refused.class)
                .hasMessageContaining("configure the next version");
        assertThat(query("SELECT count(*) FROM pepper_gecompromitteerd", null)).containsExactly("0");
    }

    @Test
    void thePayloadHasItsOwnPepper() {
        UUID id = accept(DV_REF, Map.of());
        assertThat(query(
                        "SELECT payload_pepper_versie || ':' || (payload_hmac <> dvref_hmac) FROM notificatie "
                                + "WHERE id = ?",
                        id))
                .containsExactly("1:true");
        restartWithConfig("privacy:\n  payload-pepper:\n    current-version: 2\n    versions:\n      \"2\": \""
                + DVREF_PEPPER_2 + "\"\n");
        assertThat(accept(DV_REF, Map.of()))
                .as("an identical repeat under the next payload pepper")
                .isEqualTo(id);
    }

    // ---------------------------------------------------------------------------------------------------

    private String twoDvrefPeppers() {
        return "privacy:\n  pepper:\n    current-version: 1\n    versions:\n      \"2\": \"" + DVREF_PEPPER_2 + "\"\n";
    }

    /** The NMC with KEK version 2 only: version 1 left out of the test configuration's list. */
    private Nmc startWithoutKekOne() {
        return Nmc.start(
                TestNmc.config(
                        DB,
                        IAM,
                        notify.baseUrl(),
                        notify.baseUrl(),
                        false,
                        """
                privacy:
                  kek:
                    current-version: 2
                    versions:
                      "2": "%s"
                """.formatted(KEK_2),
                        base -> base.replace("\"1\": \"" + TestNmc.KEK_1 + "\"", "\"2\": \"" + KEK_2 + "\"")),
                clock);
    }

    /** A round of the KEK re-wrap as an operator starts it (a failing round would be a 500). */
    private Http.Response rewrapRound(String toelichting) {
        return http.post(
                "/api/nmc-beheer/v1/kek/herwrapping",
                IAM.operatorToken("jansen", clock.instant()),
                "{\"toelichting\": \"" + toelichting + "\"}");
    }

    /** Restarts with KEK version 2 current (version 1 still configured), the re-wrap in batches of {@code batch}. */
    private void restartWithKekTwo(int batch) {
        restartWithConfig("""
                privacy:
                  kek:
                    current-version: 2
                    versions:
                      "2": "%s"
                retention:
                  batch-size: %d
                """.formatted(KEK_2, batch));
    }

    /** What a minute of the running NMC does: its duties' round (which plans due erasures), then its workers. */
    private void eachMinuteOnce() {
        ManualRunner.of(nmc).runDutiesOnce();
        ManualRunner.of(nmc).runWorkersOnce();
    }

    private List<String> erasureTasks(UUID id) {
        return query("SELECT CAST(due AS text) FROM taak WHERE notificatie = ? AND soort = 'wissen'", id);
    }

    private String key(UUID id) {
        return query(
                        "SELECT CASE WHEN datasleutel_gewrapt IS NULL THEN 'erased' ELSE 'key' END FROM notificatie "
                                + "WHERE id = ?",
                        id)
                .getFirst();
    }

    private List<String> ciphertexts(UUID id) {
        return query(
                "SELECT encode(ontvanger_versleuteld, 'hex') || ':' || encode(personalisatie_versleuteld, 'hex') "
                        + "FROM notificatie WHERE id = ?",
                id);
    }
}
