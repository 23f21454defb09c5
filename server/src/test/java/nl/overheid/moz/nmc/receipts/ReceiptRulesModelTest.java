package nl.overheid.moz.nmc.receipts;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import nl.overheid.moz.nmc.lifecycle.AllowedTransitions;
import nl.overheid.moz.nmc.lifecycle.NotificatieStatus;
import nl.overheid.moz.nmc.lifecycle.PogingStatus;
import nl.overheid.moz.nmc.receipts.ReceiptRules.Decision;
import nl.overheid.moz.nmc.receipts.ReceiptRules.Situation;
import org.junit.jupiter.api.Test;

/**
 * Ties model 1 ({@code server/models/lifecycle.pml}) to the code: the model judges receipts with its own transliteration
 * of {@link ReceiptRules}, and every situation it reaches, with its decision, is the committed table
 * {@code server/models/lifecycle.receipts.tsv}. {@code scripts/model-check} fails when the model no longer produces
 * exactly that table; this test fails when the real function decides any row differently, or when a transition
 * the model takes is not one of {@link AllowedTransitions}. So the properties proven on the model are proven for
 * the rules the NMC runs.
 */
class ReceiptRulesModelTest {

    /** {@code server/models/lifecycle.receipts.tsv}, on the test class path (the server's pom adds {@code models/}). */
    private static final String TABLE = "lifecycle.receipts.tsv";

    private record Row(Situation situation, String expected, String line) {}

    @Test
    void everySituationTheModelReachesIsDecidedByTheRealRulesAsInTheModel() throws IOException {
        List<Row> rows = rules();
        List<String> differences = new ArrayList<>();
        for (Row row : rows) {
            String actual = render(ReceiptRules.judge(row.situation()));
            if (!actual.equals(row.expected())) {
                differences.add(row.line() + "\n    the real ReceiptRules: " + actual);
            }
        }
        assertThat(differences)
                .as("rows of %s the real ReceiptRules decides differently", TABLE)
                .isEmpty();
    }

    @Test
    void theTableCoversEveryReceiptKindAndEveryDecision() throws IOException {
        // A table that reaches little proves little: every receipt kind, every decision, both attempts, and
        // the flags both ways must occur.
        List<Row> rows = rules();
        assertThat(rows).hasSizeGreaterThan(100);
        Set<ReceiptStatus> receipts = EnumSet.noneOf(ReceiptStatus.class);
        Set<String> decisions = new HashSet<>();
        Set<String> flags = new HashSet<>();
        for (Row row : rows) {
            Situation s = row.situation();
            receipts.add(s.receipt());
            decisions.add(row.expected().split("\t")[0]);
            flags.add("nummer" + s.pogingNummer());
            flags.add("older" + s.olderThanApplied());
            flags.add("basis" + s.basisOfBezorgd());
            flags.add("within" + s.withinMebvPeriod());
            flags.add("expired" + s.expired());
            flags.add("other" + s.otherAttemptDelivered());
        }
        assertThat(receipts).containsExactlyInAnyOrder(ReceiptStatus.values());
        assertThat(decisions)
                .containsExactlyInAnyOrder(
                        "RecordOnly",
                        "UnknownStatus",
                        "Delivered",
                        "DeliveredAgain",
                        "Ends",
                        "Resend",
                        "Recorded",
                        "ProofMoves");
        assertThat(flags)
                .contains(
                        "nummer1",
                        "nummer2",
                        "olderfalse",
                        "oldertrue",
                        "basisfalse",
                        "basistrue",
                        "withinfalse",
                        "withintrue",
                        "expiredfalse",
                        "expiredtrue",
                        "otherfalse",
                        "othertrue");
    }

    @Test
    void everyTransitionTheModelTakesIsAnAllowedPair() throws IOException {
        Set<AllowedTransitions.Pair> taken = new HashSet<>();
        for (String line : lines("PAIR")) {
            String[] f = line.split("\t");
            AllowedTransitions.Pair pair = new AllowedTransitions.Pair(status(f[1]), NotificatieStatus.of(f[2]));
            assertThat(AllowedTransitions.PAIRS).as(line).contains(pair);
            taken.add(pair);
        }
        // The model reaches every pair but the acceptance, which is its initial state.
        Set<AllowedTransitions.Pair> missed = new HashSet<>(AllowedTransitions.PAIRS);
        missed.removeAll(taken);
        assertThat(missed).containsExactly(new AllowedTransitions.Pair(null, NotificatieStatus.AANGENOMEN));
    }

    /** A decision as the model prints it: kind, attempt outcome, transition target, reden, fromBezorgd. */
    private static String render(Decision d) {
        String from = switch (d) {
            case Decision.Ends e -> String.valueOf(e.fromBezorgd());
            case Decision.Resend r -> String.valueOf(r.fromBezorgd());
            default -> "-";
        };
        return String.join(
                "\t",
                d.getClass().getSimpleName(),
                d.outcome() == null ? "-" : d.outcome().dbValue(),
                d.to() == null ? "-" : d.to().dbValue(),
                d.reden() == null ? "-" : d.reden().dbValue(),
                from);
    }

    private static List<Row> rules() throws IOException {
        List<Row> rows = new ArrayList<>();
        for (String line : lines("RULE")) {
            String[] f = line.split("\t");
            assertThat(f).as(line).hasSize(15);
            Situation s = new Situation(
                    NotificatieStatus.of(f[1]),
                    Integer.parseInt(f[2]),
                    PogingStatus.of(f[3]),
                    bool(f[4]),
                    ReceiptStatus.valueOf(f[5]),
                    bool(f[6]),
                    bool(f[7]),
                    bool(f[8]),
                    bool(f[9]));
            rows.add(new Row(s, String.join("\t", f[10], f[11], f[12], f[13], f[14]), line));
        }
        return rows;
    }

    private static List<String> lines(String kind) throws IOException {
        return table().stream().filter(line -> line.startsWith(kind + "\t")).toList();
    }

    private static boolean bool(String value) {
        assertThat(value).isIn("true", "false");
        return Boolean.parseBoolean(value);
    }

    private static NotificatieStatus status(String value) {
        return value.equals("-") ? null : NotificatieStatus.of(value);
    }

    private static List<String> table() throws IOException {
        try (InputStream in = ReceiptRulesModelTest.class.getClassLoader().getResourceAsStream(TABLE)) {
            if (in == null) {
                throw new IllegalStateException(TABLE + " is not on the test class path (server/models/)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        }
    }
}
