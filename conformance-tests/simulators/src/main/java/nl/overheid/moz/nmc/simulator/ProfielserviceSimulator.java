package nl.overheid.moz.nmc.simulator;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.delete;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.core.WireMockConfiguration;
import com.github.tomakehurst.wiremock.http.Fault;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * A stand-in for the MOZa Profielservice as the NMC calls it, on WireMock, for tests and the local run. It
 * behaves like the real service's code ({@code MinBZK/moza-profiel-service}, contract at commit {@code 6b92adf};
 * our copy is {@code api-spec/profielservice.yaml}, the behaviour is quoted in the research notes on the
 * Profielservice), not like a contract-strict server of our own making: where the two differ, the real code wins.
 *
 * <h2>What it serves</h2>
 * <ul>
 *   <li>{@code POST /api/profielservice/v1/partij} ({@code getPartij}, {@link PartijEndpoint}): 200
 *       {@code application/json} {@code PartijResponse} — {@code partijId}, {@code identificaties},
 *       {@code voorkeuren}, {@code contactgegevens}, all three lists always present; ids UUIDs; timestamps
 *       ISO-8601 with {@code Z}; every returned entry lists all its scopes. The entries are in the order they were
 *       registered (the real order is unspecified; {@link #shuffleEntries} makes it random but reproducible).
 *       Unscoped entries always come back; {@code dienstverlener} keeps the entries with a scope of that
 *       dienstverlener, {@code dienstNaam} those with a scope of that dienst or a dienstverlener-wide scope, both
 *       case-insensitively, and with both the same scope must satisfy both; an unknown dienstverlener leaves only
 *       the unscoped entries. The number is matched exactly. An unknown or soft-deleted party is 404
 *       {@code {"status":404,"title":"Partij niet gevonden","detail":"Geen partij gevonden voor het opgegeven
 *       identificatienummer.","instance":"/api/profielservice/v1/partij"}}.</li>
 *   <li>{@code DELETE /api/profielservice/v1/contactgegeven/{contactgegevenId}} ({@code verwijderContactgegeven},
 *       {@link ContactgegevenDeleteEndpoint}) with a {@code PartijIdentificatieRequest} body: 204 without a body,
 *       a soft delete; deleting a party's last active contactgegeven or voorkeur soft-deletes the party (its
 *       lookups are 404 from then on). An unknown id, an id of another party and a second delete are 404 "Contactgegeven niet
 *       gevonden" / "Contactgegeven of partij niet gevonden."; {@code Accept: application/json} alone is 406.</li>
 *   <li>A bad body, on both ({@link ProfielRequests}): none, blank or {@code null} → 400 detail "Request body mag
 *       niet leeg zijn"; not JSON, a wrong JSON type, an unknown enum constant or a missing required property →
 *       400 detail "Malformed request body" with the property in {@code field}; a pattern violation (blank, a
 *       line break) or {@code null} for a required property → 400 with every {@code violations[{field, in:
 *       "body", message}]} at once. A {@code Content-Type} other than JSON is 415. All problems are
 *       {@code application/problem+json} without {@code type} (RFC 9457: {@code about:blank}).</li>
 *   <li>Every answer of the service carries {@code API-Version: }{@value #API_VERSION} and the security headers
 *       of its {@code SecurityHeadersFilter} ({@code Cache-Control: no-store}, {@code Content-Security-Policy},
 *       {@code Strict-Transport-Security}, {@code X-Content-Type-Options}, {@code X-Frame-Options},
 *       {@code Referrer-Policy}). Another method on these paths is 405 with {@code Allow}, any other path 404.</li>
 *   <li>No authentication: the real service has none ("Deze service heeft geen auth"); an {@code Authorization}
 *       header is ignored.</li>
 * </ul>
 *
 * <h2>FSC</h2>
 * In production the NMC reaches the service through its FSC Outway. With {@link Config#fscGrantHash()} set
 * ({@code PROFIELSERVICE_SIM_FSC_GRANT_HASH} for {@link #main}) the simulator plays that Outway too
 * ({@link FscOutway}): a request must carry exactly that {@code Fsc-Grant-Hash} and an
 * {@code Fsc-Transaction-Id} that is a UUIDv7, else the answer is the Outway's, not the service's: 400 with
 * {@code Fsc-Error-Code: <code>} and {@code application/json} {@code {"message", "domain":
 * "ERROR_DOMAIN_OUTWAY", "code"}}, no {@code API-Version}. A request that passes gets its transaction id back in
 * {@code Fsc-Transaction-Id}. Without a grant hash configured the headers are not checked, only recorded. What
 * the sources say:
 * <ul>
 *   <li>FSC Core (<a href="https://logius-standaarden.github.io/fsc-core/">logius-standaarden.github.io/fsc-core</a>,
 *       repository {@code Logius-standaarden/fsc-core}, {@code specifications.md}, "Error Handling" and
 *       "Outway"): an error within the scope of FSC MUST carry the header {@code Fsc-Error-Code} with the code,
 *       and the body is the {@code error} object of its {@code manager.yaml} ({@code message}, {@code domain},
 *       {@code code}, all required); an Outway error has domain {@code ERROR_DOMAIN_OUTWAY}; errors of the Inway
 *       or the service are returned unaltered. The only Outway code today is {@code ERROR_CODE_METHOD_UNSUPPORTED}
 *       (405). Core no longer defines {@code Fsc-Grant-Hash}: its drafts until June 2023 required it and had
 *       {@code ERROR_CODE_GRANT_HASH_MISSING} and {@code ERROR_CODE_UNKNOWN} (removed in commit {@code f5b977c},
 *       "core: processed review feedback"); how a client picks the grant at its Outway is now the
 *       implementation's business.</li>
 *   <li>FSC Logging (<a href="https://logius-standaarden.github.io/fsc-logging/">logius-standaarden.github.io/fsc-logging</a>,
 *       {@code specifications.md}): the TransactionID travels in {@code Fsc-Transaction-Id}; Outway and Inway
 *       errors {@code MISSING_LOG_RECORD_ID} (400, header missing) and {@code INVALID_LOG_RECORD_ID} (400, format
 *       not valid); the Outway MUST return the TransactionID to the client in {@code Fsc-Transaction-Id}. Its
 *       format "is determined in a FSC Profile"; UUIDv7 is only the example the introduction gives. The
 *       standard does not require a UUIDv7.</li>
 *   <li>OpenFSC, the implementation the Dutch government runs (<a href="https://docs.open-fsc.nl/">docs.open-fsc.nl</a>),
 *       as MinBZK's own MOZa code records it (the {@code FscOutwayHeaders} helper and the FSC design notes of
 *       MinBZK's berichtenbox repositories, found through the code search): its Outway routes on
 *       {@code Fsc-Grant-Hash}, and {@code fsc-outway serve} requires an {@code Fsc-Transaction-Id} in UUIDv7
 *       form from the client; without the headers it answers "service not found" and "invalid uuid version, must
 *       be v7", and an unknown grant hash is 400 {@code UNKNOWN_GRANT_HASH_IN_HEADER}.</li>
 * </ul>
 * Decided here, where that does not settle it: all four refusals are 400 with the body above;
 * missing grant hash → {@value #FSC_GRANT_HASH_MISSING} (core's former code), unknown → {@value #FSC_UNKNOWN_GRANT_HASH}
 * (OpenFSC's), missing transaction id → {@value #FSC_TRANSACTION_ID_MISSING}, a transaction id that is not a
 * canonical UUID of version 7 and the RFC 9562 variant → {@value #FSC_TRANSACTION_ID_INVALID} (FSC Logging's
 * codes, OpenFSC's UUIDv7 rule); grant hash checked before transaction id. A client must treat any answer with
 * {@code Fsc-Error-Code} as the Outway's, never as the service's.
 *
 * <h2>Dev data</h2>
 * Dev DV 1 is known at the Profielservice as {@value #DEV_DV_1} ({@code test-bericht} → dienst
 * {@value #DIENST_MELDINGEN}, {@code vergunning-bericht} → {@value #DIENST_VERGUNNINGEN}), dev DV 2 as
 * {@value #DEV_DV_2} ({@code test-bericht} → {@value #DIENST_MELDINGEN}); the test DVs are {@value #TEST_DV_A} and
 * {@value #TEST_DV_B} ({@code test-bericht} → {@value #DIENST_MELDINGEN}, {@code tweede-bericht} → no dienst).
 * The NMC's choice rule, applied to the filtered answer: only {@code Email}; unverified ones skipped (by default);
 * then (1) a scope of this DV with this dienst, (2) a scope of this DV without a dienst, (3) {@code isDefault}
 * and unscoped, (4) unscoped; ties by latest {@code lastUpdated}; an entry whose scopes all belong to others is
 * never chosen. Entries are listed in answer order; "DV 1" asks ({@value #DEV_DV_1}, {@value #DIENST_MELDINGEN}),
 * "DV A" asks ({@value #TEST_DV_A}, {@value #DIENST_MELDINGEN}); ⊘ = filtered out of both answers. Numbers are
 * KVK unless stated; the same table is in {@code PROFIELSERVICE-DEV-DATA.md}.
 * <table>
 *   <caption>Dev parties</caption>
 *   <tr><th>number</th><th>what the profile holds (answer order)</th><th>rule picks for DV 1</th>
 *       <th>rule picks for DV A</th><th>NotifyNL simulator</th></tr>
 *   <tr><td>{@value #KVK_DELIVERED} {@code KVK_DELIVERED}</td><td>{@value #DEV_EMAILADRES} unscoped</td>
 *       <td>{@value #DEV_EMAILADRES} (4)</td><td>same (4)</td><td>delivered</td></tr>
 *   <tr><td>{@value #KVK_PERM_FAIL} {@code KVK_PERM_FAIL}</td><td>{@code perm-fail@simulator.notify} unscoped, the
 *       only child</td><td>{@code perm-fail@simulator.notify} (4)</td><td>same (4)</td><td>permanent-failure; the
 *       NMC's delete then soft-deletes the party: later lookups 404</td></tr>
 *   <tr><td>{@value #KVK_TEMP_FAIL} {@code KVK_TEMP_FAIL}</td><td>{@code temp-fail@simulator.notify} unscoped</td>
 *       <td>{@code temp-fail@simulator.notify} (4)</td><td>same (4)</td><td>temporary-failure</td></tr>
 *   <tr><td>{@value #KVK_NO_EMAIL} {@code KVK_NO_EMAIL}</td><td>Telefoonnummer (default, unscoped); ApplicatieId
 *       (DV 1, Meldingen)</td><td>none: 200 without Email</td><td>none</td><td>—</td></tr>
 *   <tr><td>{@value #KVK_SCOPE_DIENST} {@code KVK_SCOPE_DIENST}</td><td>{@code algemeen@alle-niveaus.nl} unscoped;
 *       {@code standaard@} default unscoped; {@code gemeente@} (DV 1); {@code meldingen@} (DV 1, Meldingen, the
 *       oldest); ⊘ {@code vergunningen@} (DV 1, Vergunningen); ⊘ {@code provincie@} (DV 2, Meldingen); ⊘
 *       {@code dvb@} (DV B, Meldingen)</td><td>{@code meldingen@alle-niveaus.nl} (1)</td>
 *       <td>{@code standaard@alle-niveaus.nl} (3)</td><td>delivered</td></tr>
 *   <tr><td>{@value #KVK_SCOPE_DV} {@code KVK_SCOPE_DV}</td><td>{@code standaard@dv-breed.nl} default unscoped;
 *       {@code algemeen@} unscoped; ⊘ {@code vergunningen@} (DV 1, Vergunningen); {@code gemeente@} (DV 1, oldest);
 *       {@code dva@} (DV A, oldest)</td><td>{@code gemeente@dv-breed.nl} (2)</td><td>{@code dva@dv-breed.nl}
 *       (2)</td><td>delivered</td></tr>
 *   <tr><td>{@value #KVK_DEFAULT} {@code KVK_DEFAULT}</td><td>{@code algemeen@standaard.nl} unscoped (newest); ⊘
 *       {@code provincie@} (DV 2); {@code standaard@} default unscoped</td><td>{@code standaard@standaard.nl} (3)</td>
 *       <td>same (3)</td><td>delivered</td></tr>
 *   <tr><td>{@value #KVK_UNSCOPED} {@code KVK_UNSCOPED}</td><td>⊘ {@code provincie@ongescoped.nl} default, scoped to
 *       DV 2; {@code ongescoped@} unscoped</td><td>{@code ongescoped@ongescoped.nl} (4)</td><td>same (4)</td>
 *       <td>delivered</td></tr>
 *   <tr><td>{@value #KVK_TIE} {@code KVK_TIE}</td><td>{@code eerder@gelijkspel.nl}, {@code later@} (latest
 *       lastUpdated, earliest createdAt), {@code oudst@}, all (DV 1, Meldingen); {@code algemeen-oud@} and
 *       {@code algemeen-nieuw@} (later lastUpdated, earlier createdAt) unscoped</td><td>{@code later@gelijkspel.nl} (1, tie)</td>
 *       <td>{@code algemeen-nieuw@gelijkspel.nl} (4, tie)</td><td>delivered</td></tr>
 *   <tr><td>{@value #KVK_UNVERIFIED_ONLY} {@code KVK_UNVERIFIED_ONLY}</td><td>{@code onbevestigd@ongeverifieerd.nl}
 *       default unscoped, unverified; Telefoonnummer</td><td>none (with unverified allowed:
 *       {@code onbevestigd@ongeverifieerd.nl})</td><td>same</td><td>— (delivered)</td></tr>
 *   <tr><td>{@value #KVK_UNVERIFIED_SKIPPED} {@code KVK_UNVERIFIED_SKIPPED}</td><td>{@code ook-onbevestigd@overgeslagen.nl}
 *       unscoped, unverified; {@code onbevestigd-standaard@} default unscoped, unverified; {@code onbevestigd@}
 *       (DV 1, Meldingen) unverified; {@code bevestigd@} unscoped (the oldest)</td><td>{@code bevestigd@overgeslagen.nl} (4) (unverified allowed:
 *       {@code onbevestigd@}, 1)</td><td>{@code bevestigd@overgeslagen.nl} (4) (unverified allowed:
 *       {@code onbevestigd-standaard@}, 3)</td><td>delivered</td></tr>
 *   <tr><td>{@value #KVK_OTHER_DV_ONLY} {@code KVK_OTHER_DV_ONLY}</td><td>⊘ {@code provincie@andere-dv.nl} default
 *       (DV 2); ⊘ {@code provincie-meldingen@} (DV 2, Meldingen)</td><td>none: 200 with empty contactgegevens
 *       (also with {@link #unfiltered()})</td><td>none</td><td>— (DV 2 / test-bericht: {@code provincie-meldingen@},
 *       1)</td></tr>
 *   <tr><td>{@value #KVK_VOORKEUR_ONLY} {@code KVK_VOORKEUR_ONLY}</td><td>no contactgegevens; voorkeur WebsiteTaal
 *       {@code nl}</td><td>none: 200 with empty contactgegevens</td><td>none</td><td>—</td></tr>
 *   <tr><td>{@value #KVK_DELETED} {@code KVK_DELETED}</td><td>soft-deleted party</td><td>404 Partij niet
 *       gevonden</td><td>404</td><td>—</td></tr>
 *   <tr><td>{@value #KVK_UNKNOWN} {@code KVK_UNKNOWN}, and every number not listed</td><td>no party</td><td>404 Partij
 *       niet gevonden</td><td>404</td><td>—</td></tr>
 *   <tr><td>{@value #RSIN_DELIVERED} {@code RSIN_DELIVERED} (RSIN, elfproef)</td><td>{@code info@voorbeeldstichting.nl}
 *       unscoped</td><td>{@code info@voorbeeldstichting.nl} (4)</td><td>same (4)</td><td>delivered</td></tr>
 *   <tr><td>{@value #BSN_DELIVERED} {@code BSN_DELIVERED} (BSN, elfproef)</td><td>{@code burger@voorbeeldpersoon.nl}
 *       default unscoped</td><td>{@code burger@voorbeeldpersoon.nl} (3)</td><td>same (3)</td><td>delivered</td></tr>
 * </table>
 * In every party a winner in a higher tier is older than the losers below it and never simply the first entry,
 * so neither list order nor recency alone picks right. Tests add or replace parties with {@link #register}
 * ({@link Party}); {@link #reset()} restores exactly this table, soft deletes undone.
 *
 * <h2>Observability</h2>
 * {@link #calls()} journals every request that reached the simulator's transformers (operation, method, path,
 * {@code traceparent}, {@code Fsc-Grant-Hash}, {@code Fsc-Transaction-Id}, status, the body as received);
 * {@link #deletes()} every delete with a valid body (contactgegeven id, identification, status). A test's own
 * stub without the simulator's transformer answers outside these journals (WireMock's own journal still has it).
 * Log lines (through {@link Config#log()}) carry method, route, status, ids, field names and FSC codes, never
 * an identifying number or an e-mail address; {@link Call#toString()} and {@link Delete#toString()} leave them
 * out too.
 *
 * <h2>Faults on top: stub priorities</h2>
 * The simulator's stubs are registered at priority {@value #STUB_PRIORITY} (lower wins; stubs without a priority
 * get 5). A test adds a fault through {@link #wireMock()} and removes it with {@code wireMock().removeStub(…)} or
 * {@link #reset()}:
 * <pre>{@code
 * sim.wireMock().stubFor(post(urlPathEqualTo(ProfielserviceSimulator.PARTIJ_PATH)).atPriority(1)
 *         .willReturn(ProfielserviceSimulator.unavailable()));
 * sim.wireMock().stubFor(post(urlPathEqualTo(ProfielserviceSimulator.PARTIJ_PATH)).atPriority(1)
 *         .willReturn(ProfielserviceSimulator.slowDrip(Duration.ofSeconds(20))));
 * // the delete takes effect, but the caller never sees the 204:
 * sim.wireMock().stubFor(delete(urlPathMatching(ProfielserviceSimulator.CONTACTGEGEVEN_PATH + "/.*")).atPriority(1)
 *         .willReturn(aResponse().withTransformers(ProfielserviceSimulator.DELETE_TRANSFORMER)
 *                 .withFault(Fault.CONNECTION_RESET_BY_PEER)));
 * }</pre>
 * Ready-made faults: {@link #serverError()}, {@link #unavailable()}, {@link #tooManyRequests(int)},
 * {@link #slowDrip(Duration)}, {@link #garbage()}, {@link #withoutContactgegevens()}, {@link #manyEntries(int)}
 * ({@link #TEN_THOUSAND}), {@link #notFoundAsHtml()}, {@link #notFoundWithTitle(String)},
 * {@link #connectionReset()}, {@link #unfiltered()} and {@link #problemResponse(int, String, String)}.
 *
 * <p>Thread-safe.
 */
public final class ProfielserviceSimulator implements AutoCloseable {

    /** Priority of the simulator's own stubs; test stubs at a lower number (e.g. 1) take precedence. */
    public static final int STUB_PRIORITY = 10;
    /** Priority of the 404 fallback, below every other stub (the 405s sit just above it). */
    public static final int FALLBACK_PRIORITY = 100;
    /** Requests kept in WireMock's journal, and calls and deletes kept in {@link #calls()} and {@link #deletes()}. */
    public static final int REQUEST_JOURNAL_LIMIT = ProfielContext.JOURNAL_LIMIT;

    /** The contract's {@code info.version}, sent as {@code API-Version} on every answer of the service. */
    public static final String API_VERSION = "1.0.0";

    public static final String BASE_PATH = "/api/profielservice/v1";
    public static final String PARTIJ_PATH = BASE_PATH + "/partij";
    /** The collection of the delete; the operation's path is {@code CONTACTGEGEVEN_PATH + "/" + id}. */
    public static final String CONTACTGEGEVEN_PATH = BASE_PATH + "/contactgegeven";

    /** The transformer behind {@code POST /partij}. */
    public static final String PARTIJ_TRANSFORMER = "profielservice-get-partij";
    /** The transformer behind {@code DELETE /contactgegeven/{id}}. */
    public static final String DELETE_TRANSFORMER = "profielservice-verwijder-contactgegeven";
    /** The transformer behind the 405 and 404 answers. */
    public static final String FALLBACK_TRANSFORMER = "profielservice-fallback";

    /** FSC: {@code Fsc-Error-Code} when {@code Fsc-Grant-Hash} is missing (FSC core's code until June 2023). */
    public static final String FSC_GRANT_HASH_MISSING = "ERROR_CODE_GRANT_HASH_MISSING";
    /** FSC: {@code Fsc-Error-Code} when {@code Fsc-Grant-Hash} is not the configured one (OpenFSC's code). */
    public static final String FSC_UNKNOWN_GRANT_HASH = "UNKNOWN_GRANT_HASH_IN_HEADER";
    /** FSC: {@code Fsc-Error-Code} when {@code Fsc-Transaction-Id} is missing (FSC Logging). */
    public static final String FSC_TRANSACTION_ID_MISSING = "MISSING_LOG_RECORD_ID";
    /** FSC: {@code Fsc-Error-Code} when {@code Fsc-Transaction-Id} is not a UUIDv7 (FSC Logging, OpenFSC's rule). */
    public static final String FSC_TRANSACTION_ID_INVALID = "INVALID_LOG_RECORD_ID";
    /**
     * A grant hash in FSC's {@code $1$<algorithm>$<base64url>} form for local runs; not a secret. Quote it in a
     * shell or compose file: the {@code $} signs are literal.
     */
    public static final String DEV_FSC_GRANT_HASH = "$1$4$ZGV2LW5tYy1wcm9maWVsc2VydmljZS1ncmFudA";

    /** Dev DV 1's name at the Profielservice. */
    public static final String DEV_DV_1 = "Gemeente Voorbeeldstad";
    /** Dev DV 2's name at the Profielservice. */
    public static final String DEV_DV_2 = "Provincie Voorbeeld";
    /** The conformance tests' first DV's name at the Profielservice. */
    public static final String TEST_DV_A = "DV A";
    /** The conformance tests' second DV's name at the Profielservice. */
    public static final String TEST_DV_B = "DV B";
    /** The dienst of {@code test-bericht} (dev DV 1 and 2, test DVs). */
    public static final String DIENST_MELDINGEN = "Meldingen";
    /** The dienst of dev DV 1's {@code vergunning-bericht}. */
    public static final String DIENST_VERGUNNINGEN = "Vergunningen";

    /** Dev data: answers {@value #DEV_EMAILADRES} unscoped, which the NotifyNL simulator delivers. */
    public static final String KVK_DELIVERED = "12345670";
    /** Dev data: answers {@code perm-fail@simulator.notify} unscoped, its only child ({@link NotifyNlSimulator#PERM_FAIL_ADDRESS}). */
    public static final String KVK_PERM_FAIL = "12345671";
    /** Dev data: answers {@code temp-fail@simulator.notify} unscoped ({@link NotifyNlSimulator#TEMP_FAIL_ADDRESS}). */
    public static final String KVK_TEMP_FAIL = "12345672";
    /** Dev data: a party with a phone number and an ApplicatieId only: 200 without an {@code Email} entry. */
    public static final String KVK_NO_EMAIL = "12345673";
    /** Dev data: entries in all four tiers; tier 1 (DV and dienst) wins for dev DV 1, tier 3 for DV A. */
    public static final String KVK_SCOPE_DIENST = "12345680";
    /** Dev data: tier 2 (a dienstverlener-wide scope) wins over default and unscoped, for dev DV 1 and DV A. */
    public static final String KVK_SCOPE_DV = "12345681";
    /** Dev data: tier 3 (the unscoped default) wins over a newer unscoped entry. */
    public static final String KVK_DEFAULT = "12345682";
    /** Dev data: tier 4; the party's default is scoped to dev DV 2, so it is no tier-3 candidate. */
    public static final String KVK_UNSCOPED = "12345683";
    /** Dev data: ties within a tier, broken by the latest {@code lastUpdated} (not {@code createdAt}). */
    public static final String KVK_TIE = "12345684";
    /** Dev data: the only e-mail address is unverified. */
    public static final String KVK_UNVERIFIED_ONLY = "12345685";
    /** Dev data: unverified addresses in higher tiers are skipped for a verified unscoped one. */
    public static final String KVK_UNVERIFIED_SKIPPED = "12345686";
    /** Dev data: every entry is scoped to dev DV 2: an empty answer for dev DV 1 and the test DVs. */
    public static final String KVK_OTHER_DV_ONLY = "12345687";
    /** Dev data: no contactgegevens left, one voorkeur: 200 with empty {@code contactgegevens}. */
    public static final String KVK_VOORKEUR_ONLY = "12345688";
    /** Dev data: a soft-deleted party: the same 404 as an unknown one. */
    public static final String KVK_DELETED = "12345689";
    /** Dev data: an unknown party (404), like every number not registered. */
    public static final String KVK_UNKNOWN = "99999999";
    /** Dev data: an RSIN (passes the elfproef) with one unscoped address, delivered. */
    public static final String RSIN_DELIVERED = "123456782";
    /** Dev data: a BSN from the test range (passes the elfproef) with one unscoped default address, delivered. */
    public static final String BSN_DELIVERED = "999993653";
    /** The address of {@link #KVK_DELIVERED}. */
    public static final String DEV_EMAILADRES = "info@voorbeeldbedrijf.nl";

    /** The size of {@link #manyEntries(int)} the issue names. */
    public static final int TEN_THOUSAND = 10_000;
    /** The dienstverlener every entry of {@link #manyEntries(int)} is scoped to: none of the NMC's DVs. */
    public static final String MANY_ENTRIES_DV = "Andere Dienstverlener";

    public static final String DEFAULT_BIND_ADDRESS = "127.0.0.1";
    /** The port of {@link #main} when {@code PROFIELSERVICE_SIM_PORT} is not set. */
    public static final int DEFAULT_STANDALONE_PORT = 8082;

    private final Config config;
    private final ProfielRegistry registry = new ProfielRegistry();
    private final ProfielContext context;
    private final WireMockServer server;

    private ProfielserviceSimulator(Config config) {
        this.config = config;
        this.context =
                new ProfielContext(new FscOutway(config.fscGrantHash()), registry, config.log(), Clock.systemUTC());
        this.server = new WireMockServer(WireMockConfiguration.options()
                .port(config.port())
                .bindAddress(config.bindAddress())
                .httpServerFactory(new CaseExactJetty())
                .mappingSource(new NoMappingsSource())
                .notifier(new QuietNotifier(config.log()))
                .maxRequestJournalEntries(REQUEST_JOURNAL_LIMIT)
                .extensions(
                        new PartijEndpoint(context),
                        new ContactgegevenDeleteEndpoint(context),
                        new ProfielFallbackEndpoint(context)));
    }

    /**
     * Starts a simulator with the dev data.
     *
     * @throws RuntimeException when the port cannot be bound
     */
    public static ProfielserviceSimulator start(Config config) {
        ProfielserviceSimulator simulator = new ProfielserviceSimulator(Objects.requireNonNull(config, "config"));
        simulator.server.start();
        simulator.registerStubs();
        return simulator;
    }

    /** Starts a simulator with {@link Config#defaults()}: a random port, no FSC, no log. */
    public static ProfielserviceSimulator start() {
        return start(Config.defaults());
    }

    /** The port it listens on (the chosen one when configured as 0). */
    public int port() {
        return server.port();
    }

    /**
     * {@code http://127.0.0.1:<port>}: the service's root, the NMC's {@code profielservice.base-url} (the
     * contract's path keys carry {@value #BASE_PATH}, and it has no {@code servers}).
     */
    public String baseUrl() {
        return "http://127.0.0.1:" + port();
    }

    public Config config() {
        return config;
    }

    /** The underlying server, for extra stubs ({@code stubFor}) and verification ({@code verify}). */
    public WireMockServer wireMock() {
        return server;
    }

    /**
     * Adds a party, replacing every party that shares one of its identifications, until {@link #reset()}.
     *
     * @return the party, with the ids the simulator answers
     */
    public Party register(Party party) {
        return registry.register(Objects.requireNonNull(party, "party"));
    }

    /** Builds and adds a party; see {@link #register(Party)}. */
    public Party register(Party.Builder party) {
        return register(party.build());
    }

    /**
     * From now on every answer lists its entries in a random order drawn from {@code seed} (the real order is
     * unspecified), until {@link #reset()}. The dev data's order is never the choice rule's.
     */
    public void shuffleEntries(long seed) {
        registry.shuffle(seed);
    }

    /**
     * Every request that reached the simulator's transformers, whatever its answer (FSC refusals included), in
     * the order answered; the newest {@value #REQUEST_JOURNAL_LIMIT}.
     */
    public List<Call> calls() {
        return context.calls();
    }

    /** The {@code traceparent} headers of {@link #calls()} that carried one, in the same order. */
    public List<String> traceparents() {
        return calls().stream().map(Call::traceparent).filter(Objects::nonNull).toList();
    }

    /** Every delete with a valid body, whatever its answer (204 or 404), in the order answered. */
    public List<Delete> deletes() {
        return context.deletes();
    }

    /**
     * Back to a fresh simulator on the same port: the dev data again (registrations gone, soft deletes undone),
     * insertion order, no calls or deletes, every test stub removed and the request journal emptied.
     */
    public void reset() {
        registry.reset();
        context.clear();
        server.resetAll();
        registerStubs();
    }

    @Override
    public void close() {
        server.stop();
    }

    // --- faults ------------------------------------------------------------------------------------------------

    /**
     * A problem answer of the service for a test's fault stub: the status, {@code application/problem+json}
     * {@code {type: about:blank, title, status, detail}} (the shape of its {@code DomainExceptionMapper}), with
     * {@code API-Version} and the security headers.
     */
    public static ResponseDefinitionBuilder problemResponse(int status, String title, String detail) {
        return serviceResponse(
                status,
                ProfielEndpoint.PROBLEM_JSON,
                JsonText.write(
                        JsonText.object("type", "about:blank", "title", title, "status", status, "detail", detail)));
    }

    /** 500 exactly as the real service's unhandled-exception mapper answers it. */
    public static ResponseDefinitionBuilder serverError() {
        return problemResponse(500, "Internal Server Error", "Er is een onverwachte fout opgetreden");
    }

    /** 503, as a proxy in front of the service (or the service while it starts) answers: a plain problem. */
    public static ResponseDefinitionBuilder unavailable() {
        return aResponse()
                .withStatus(503)
                .withHeader("Content-Type", ProfielEndpoint.PROBLEM_JSON)
                .withBody(JsonText.write(JsonText.object("status", 503, "title", "Service Unavailable")));
    }

    /** 429 with {@code Retry-After}: the real service has no rate limit, but an FSC Outway or gateway may. */
    public static ResponseDefinitionBuilder tooManyRequests(int retryAfterSeconds) {
        return aResponse()
                .withStatus(429)
                .withHeader("Content-Type", ProfielEndpoint.PROBLEM_JSON)
                .withHeader("Retry-After", Integer.toString(retryAfterSeconds))
                .withBody(JsonText.write(JsonText.object("status", 429, "title", "Too Many Requests")));
    }

    /**
     * For the {@code POST /partij} stub: the simulator's real answer, its body dribbled out in 50 chunks over
     * {@code total} (headers at once), so a client's read timeout, not its connect timeout, is what trips.
     */
    public static ResponseDefinitionBuilder slowDrip(Duration total) {
        return aResponse()
                .withTransformers(PARTIJ_TRANSFORMER)
                .withChunkedDribbleDelay(50, Math.toIntExact(total.toMillis()));
    }

    /** 200 {@code application/json} whose body is not JSON. */
    public static ResponseDefinitionBuilder garbage() {
        return serviceResponse(200, ProfielEndpoint.APPLICATION_JSON, "<html><body>Dit is geen JSON {\"partijId\":");
    }

    /** 200 {@code PartijResponse} without the required {@code contactgegevens} member. */
    public static ResponseDefinitionBuilder withoutContactgegevens() {
        return serviceResponse(
                200,
                ProfielEndpoint.APPLICATION_JSON,
                JsonText.write(JsonText.object(
                        "partijId",
                        UUID.fromString("5c0c5a7e-0000-4000-8000-000000000001"),
                        "identificaties",
                        List.of(),
                        "voorkeuren",
                        List.of())));
    }

    /**
     * 200 {@code PartijResponse} with {@code count} verified {@code Email} entries ({@code adres-<i>@veel-adressen.nl}),
     * every one scoped to {@value #MANY_ENTRIES_DV} and {@value #DIENST_MELDINGEN}: an answer the real service
     * would never give a filtered lookup, in which the choice rule must find no address of the NMC's DVs.
     */
    public static ResponseDefinitionBuilder manyEntries(int count) {
        if (count < 0) {
            throw new IllegalArgumentException("count must be >= 0");
        }
        List<Map<String, Object>> entries = new ArrayList<>(count);
        String timestamp = ProfielRegistry.instant(Party.DEFAULT_TIMESTAMP);
        List<Map<String, Object>> scopes =
                List.of(JsonText.object("dienstverlenerNaam", MANY_ENTRIES_DV, "dienstNaam", DIENST_MELDINGEN));
        for (int i = 0; i < count; i++) {
            entries.add(JsonText.object(
                    "id",
                    new UUID(0x5c0c5a7e00004000L, 0x8000000000000000L | i),
                    "type",
                    "Email",
                    "waarde",
                    "adres-" + i + "@veel-adressen.nl",
                    "isGeverifieerd",
                    true,
                    "isDefault",
                    false,
                    "createdAt",
                    timestamp,
                    "lastUpdated",
                    timestamp,
                    "scopes",
                    scopes));
        }
        return serviceResponse(
                200,
                ProfielEndpoint.APPLICATION_JSON,
                JsonText.write(JsonText.object(
                        "partijId",
                        UUID.fromString("5c0c5a7e-0000-4000-8000-000000000002"),
                        "identificaties",
                        List.of(JsonText.object("identificatieType", "KVK", "identificatieNummer", KVK_UNKNOWN)),
                        "voorkeuren",
                        List.of(),
                        "contactgegevens",
                        entries)));
    }

    /** A 404 of another shape: an HTML page, as a gateway in front of the service answers an unknown route. */
    public static ResponseDefinitionBuilder notFoundAsHtml() {
        return aResponse()
                .withStatus(404)
                .withHeader("Content-Type", "text/html; charset=utf-8")
                .withBody("<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>");
    }

    /** A 404 problem of the service with another title than "Partij niet gevonden" (e.g. "Not Found"). */
    public static ResponseDefinitionBuilder notFoundWithTitle(String title) {
        return serviceResponse(
                404,
                ProfielEndpoint.PROBLEM_JSON,
                JsonText.write(JsonText.object("status", 404, "title", title, "instance", PARTIJ_PATH)));
    }

    /** The connection is reset before any answer. */
    public static ResponseDefinitionBuilder connectionReset() {
        return aResponse().withFault(Fault.CONNECTION_RESET_BY_PEER);
    }

    /**
     * For the {@code POST /partij} stub: the simulator's answer, but with every active entry of the party whatever
     * {@code dienstverlener} and {@code dienstNaam} ask — entries of other DVs included, which the choice rule
     * must never pick.
     */
    public static ResponseDefinitionBuilder unfiltered() {
        return aResponse()
                .withTransformers(PARTIJ_TRANSFORMER)
                .withTransformerParameter(PartijEndpoint.UNFILTERED, true);
    }

    private static ResponseDefinitionBuilder serviceResponse(int status, String contentType, String body) {
        ResponseDefinitionBuilder response = aResponse()
                .withStatus(status)
                .withHeader("Content-Type", contentType)
                .withHeader("API-Version", API_VERSION);
        ProfielEndpoint.SECURITY_HEADERS.forEach(response::withHeader);
        return response.withBody(body);
    }

    private void registerStubs() {
        String contactgegevenId = CONTACTGEGEVEN_PATH + "/[^/]+";
        server.stubFor(post(urlPathEqualTo(PARTIJ_PATH))
                .atPriority(STUB_PRIORITY)
                .willReturn(aResponse().withTransformers(PARTIJ_TRANSFORMER)));
        server.stubFor(delete(urlPathMatching(contactgegevenId))
                .atPriority(STUB_PRIORITY)
                .willReturn(aResponse().withTransformers(DELETE_TRANSFORMER)));
        server.stubFor(any(urlPathEqualTo(PARTIJ_PATH))
                .atPriority(FALLBACK_PRIORITY - 1)
                .willReturn(aResponse()
                        .withTransformers(FALLBACK_TRANSFORMER)
                        .withTransformerParameter(ProfielFallbackEndpoint.ALLOW, "POST")));
        server.stubFor(any(urlPathMatching(contactgegevenId))
                .atPriority(FALLBACK_PRIORITY - 1)
                .willReturn(aResponse()
                        .withTransformers(FALLBACK_TRANSFORMER)
                        .withTransformerParameter(ProfielFallbackEndpoint.ALLOW, "DELETE")));
        server.stubFor(any(anyUrl())
                .atPriority(FALLBACK_PRIORITY)
                .willReturn(aResponse().withTransformers(FALLBACK_TRANSFORMER)));
    }

    /**
     * Runs the simulator until the process is killed, for the local run script. Configured by environment:
     * {@code PROFIELSERVICE_SIM_PORT} (default 8082), {@code PROFIELSERVICE_SIM_BIND_ADDRESS} (127.0.0.1) and
     * {@code PROFIELSERVICE_SIM_FSC_GRANT_HASH} (unset: no FSC checks; e.g. {@value #DEV_FSC_GRANT_HASH}, the
     * value the NMC's configuration must send). Logs one line per request to stdout: routes, statuses, ids.
     */
    public static void main(String[] args) throws InterruptedException {
        Config config;
        Consumer<String> log = SimulatorEnv.stdout("profielservice-sim");
        try {
            config = Config.builder()
                    .port(SimulatorEnv.intFromEnv("PROFIELSERVICE_SIM_PORT", DEFAULT_STANDALONE_PORT))
                    .bindAddress(SimulatorEnv.fromEnv("PROFIELSERVICE_SIM_BIND_ADDRESS", DEFAULT_BIND_ADDRESS))
                    .fscGrantHash(SimulatorEnv.fromEnv("PROFIELSERVICE_SIM_FSC_GRANT_HASH", null))
                    .log(log)
                    .build();
        } catch (IllegalArgumentException invalid) {
            System.err.println("profielservice-sim: " + invalid.getMessage());
            System.exit(2);
            return;
        }
        if (SimulatorEnv.fromEnv("PROFIELSERVICE_SIM_TOKEN", null) != null) {
            log.accept("PROFIELSERVICE_SIM_TOKEN is ignored: the Profielservice has no authentication");
        }
        ProfielserviceSimulator simulator = start(config);
        Runtime.getRuntime().addShutdownHook(new Thread(simulator::close, "profielservice-sim-shutdown"));
        log.accept("listening on " + simulator.baseUrl() + BASE_PATH + " (bind " + config.bindAddress() + "), "
                + (config.fscGrantHash() == null
                        ? "no FSC checks"
                        : "FSC: Fsc-Grant-Hash from PROFIELSERVICE_SIM_FSC_GRANT_HASH "
                                + "and a UUIDv7 Fsc-Transaction-Id required")
                + ", dev data: " + ProfielDevData.parties().size()
                + " parties (conformance-tests/simulators/PROFIELSERVICE-DEV-DATA.md)");
        new CountDownLatch(1).await();
    }

    /**
     * One request that reached the simulator. {@link #toString()} leaves the body and the path out.
     *
     * @param operation        the contract's {@code operationId} ({@code getPartij}, {@code verwijderContactgegeven}),
     *                         or null for a path or method the simulator does not serve
     * @param method           the HTTP method
     * @param path             the request path without its query
     * @param traceparent      the {@code traceparent} header as received, or null
     * @param fscGrantHash     the {@code Fsc-Grant-Hash} header as received, or null (recorded also when FSC is off)
     * @param fscTransactionId the {@code Fsc-Transaction-Id} header as received, or null
     * @param status           the status answered (the Outway's, for an FSC refusal)
     * @param body             the request body as received (may hold an identifying number: never log it)
     * @param receivedAt       the simulator's wall clock when the request reached it
     */
    public record Call(
            String operation,
            String method,
            String path,
            String traceparent,
            String fscGrantHash,
            String fscTransactionId,
            int status,
            String body,
            Instant receivedAt) {

        @Override
        public String toString() {
            return "Call[operation=" + operation + ", method=" + method + ", status=" + status + ", traceparent="
                    + traceparent + ", fscGrantHash=" + (fscGrantHash == null ? "absent" : "present")
                    + ", fscTransactionId="
                    + (FscOutway.isUuid(fscTransactionId)
                            ? fscTransactionId
                            : fscTransactionId == null ? "absent" : "(not a uuid)")
                    + ", receivedAt=" + receivedAt + "]";
        }
    }

    /**
     * One delete with a valid body. {@link #toString()} leaves the number out.
     *
     * @param status 204 when it took effect, 404 when the contactgegeven or party was not found (or deleted before)
     */
    public record Delete(
            UUID contactgegevenId,
            Party.IdentificatieType identificatieType,
            String identificatieNummer,
            int status,
            Instant receivedAt) {

        @Override
        public String toString() {
            return "Delete[contactgegevenId=" + contactgegevenId + ", identificatieType=" + identificatieType
                    + ", status=" + status + ", receivedAt=" + receivedAt + "]";
        }
    }

    /**
     * The simulator's settings; build with {@link #builder()} or take {@link #defaults()}.
     *
     * @param port         TCP port; 0 picks a free one
     * @param bindAddress  the address to listen on
     * @param fscGrantHash the grant hash the simulated FSC Outway accepts, or null for no FSC checks
     * @param log          receives one line per request; never personal data
     */
    public record Config(int port, String bindAddress, String fscGrantHash, Consumer<String> log) {

        /** The contract's {@code Fsc-Grant-Hash} parameter: at most 200 of these characters. */
        private static final Pattern GRANT_HASH = Pattern.compile("[A-Za-z0-9$_+/=.-]{1,200}");

        public Config {
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("port must be 0..65535, got " + port);
            }
            Objects.requireNonNull(bindAddress, "bindAddress");
            if (fscGrantHash != null && !GRANT_HASH.matcher(fscGrantHash).matches()) {
                throw new IllegalArgumentException("fscGrantHash must be 1..200 of A-Z a-z 0-9 $ _ + / = . -"
                        + " (the contract's Fsc-Grant-Hash pattern)");
            }
            Objects.requireNonNull(log, "log");
        }

        /** A random port on 127.0.0.1, no FSC, no log. */
        public static Config defaults() {
            return builder().build();
        }

        public static Builder builder() {
            return new Builder();
        }

        public Builder toBuilder() {
            return new Builder()
                    .port(port)
                    .bindAddress(bindAddress)
                    .fscGrantHash(fscGrantHash)
                    .log(log);
        }

        @Override
        public String toString() {
            return "Config[port=" + port + ", bindAddress=" + bindAddress + ", fsc=" + (fscGrantHash != null) + "]";
        }

        /** Starts from the defaults; every setter replaces one field. */
        public static final class Builder {
            private int port = 0;
            private String bindAddress = DEFAULT_BIND_ADDRESS;
            private String fscGrantHash;
            private Consumer<String> log = line -> {};

            private Builder() {}

            public Builder port(int port) {
                this.port = port;
                return this;
            }

            public Builder bindAddress(String bindAddress) {
                this.bindAddress = bindAddress;
                return this;
            }

            /** Plays the FSC Outway: requests need this {@code Fsc-Grant-Hash} and a UUIDv7 transaction id. */
            public Builder fscGrantHash(String fscGrantHash) {
                this.fscGrantHash = fscGrantHash;
                return this;
            }

            /** For example {@code System.out::println}; lines carry no personal data. */
            public Builder log(Consumer<String> log) {
                this.log = log;
                return this;
            }

            public Config build() {
                return new Config(port, bindAddress, fscGrantHash, log);
            }
        }
    }
}
