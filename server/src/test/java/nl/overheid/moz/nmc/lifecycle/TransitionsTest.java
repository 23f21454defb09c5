package nl.overheid.moz.nmc.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.testing.MutableClock;
import nl.overheid.moz.nmc.testing.Notifications;
import nl.overheid.moz.nmc.testing.TestDatabase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The transition function and the trigger that guards it, on the real schema. */
class TransitionsTest {

    private static final TestDatabase DB = TestDatabase.get();
    private static final Database database = DB.shared();
    private final MutableClock clock = MutableClock.startingNow();
    private final Transitions transitions = new Transitions(new NotificatieRepository(), clock);
    private UUID dvId;

    @BeforeEach
    void seed() {
        dvId = DB.resetWithOneDv(database);
    }

    private Transitions.Locked accept() {
        return database.inTransaction(
                c -> transitions.accept(c, newNotificatie(UUID.randomUUID())).notificatie());
    }

    private NewNotificatie newNotificatie(UUID id) {
        return Notifications.aNotificationWithId(id, dvId);
    }

    /** Seed: "een verzending of herverzending wordt na geldig_tot niet meer gestart": at geldig_tot itself it may. */
    @Test
    void geldigTotHasPassedOnlyAfterItsMoment() {
        java.time.Instant geldigTot = java.time.Instant.parse("2026-12-03T12:00:00Z");
        assertThat(Transitions.expired(geldigTot, geldigTot.minusNanos(1000))).isFalse();
        assertThat(Transitions.expired(geldigTot, geldigTot)).isFalse();
        assertThat(Transitions.expired(geldigTot, geldigTot.plusNanos(1000))).isTrue();
        assertThat(Transitions.expired(null, java.time.Instant.MAX))
                .as("no geldig_tot: never")
                .isFalse();
    }

    @Test
    void acceptanceWritesTheNotificationAndEventOneInOneTransaction() throws SQLException {
        Transitions.Locked n = accept();

        assertThat(n.status()).isEqualTo(NotificatieStatus.AANGENOMEN);
        assertThat(n.version()).isEqualTo(1);
        assertThat(events(n.id())).containsExactly("1:null>aangenomen");
    }

    @Test
    void aRepeatedAcceptanceReturnsTheExistingNotification() {
        NewNotificatie first = newNotificatie(UUID.randomUUID());
        NewNotificatie repeat =
                Notifications.withHmacs(Notifications.aNotification(dvId), first.dvrefHmac(), first.payloadHmac());

        Transitions.AcceptResult a = database.inTransaction(c -> transitions.accept(c, first));
        Transitions.AcceptResult b = database.inTransaction(c -> transitions.accept(c, repeat));

        assertThat(a.created()).isTrue();
        assertThat(b.created()).isFalse();
        assertThat(b.notificatie().id()).isEqualTo(first.id());
    }

    @Test
    void everyTransitionRaisesTheVersionAndWritesItsEvent() throws SQLException {
        Transitions.Locked n = accept();
        database.inTransactionDo(c -> {
            Transitions.Locked locked = transitions.lock(c, n.id()).orElseThrow();
            Transitions.Locked sending = transitions.apply(c, locked, NotificatieStatus.IN_VERZENDING, null);
            transitions.apply(c, sending, NotificatieStatus.VERZONDEN, null);
        });
        database.inTransactionDo(c -> {
            Transitions.Locked locked = transitions.lock(c, n.id()).orElseThrow();
            transitions.apply(c, locked, NotificatieStatus.VERZONDEN, null);
        });

        assertThat(events(n.id()))
                .containsExactly(
                        "1:null>aangenomen",
                        "2:aangenomen>in-verzending",
                        "3:in-verzending>verzonden",
                        "4:verzonden>verzonden");
    }

    /** The DV sees status and reden together: the transition function writes only pairs its contract has. */
    @Test
    void aRedenThatDoesNotGoWithItsStatusIsRefusedAndNothingChanges() throws SQLException {
        Transitions.Locked n = accept();
        for (Reden wrong : new Reden[] {null, Reden.ONBEREIKBAAR}) {
            assertThatThrownBy(() -> database.inTransactionDo(c -> transitions.apply(
                            c, transitions.lock(c, n.id()).orElseThrow(), NotificatieStatus.VERLOPEN, wrong)))
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> database.inTransactionDo(c -> transitions.apply(
                        c,
                        transitions.lock(c, n.id()).orElseThrow(),
                        NotificatieStatus.IN_VERZENDING,
                        Reden.TECHNISCH)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(events(n.id())).containsExactly("1:null>aangenomen");
    }

    @Test
    void aPairOutsideTheRulesIsRefusedAndNothingChanges() throws SQLException {
        Transitions.Locked n = accept();

        assertThatThrownBy(() -> database.inTransactionDo(c -> transitions.apply(
                        c, transitions.lock(c, n.id()).orElseThrow(), NotificatieStatus.BEZORGD, null)))
                .isInstanceOf(TransitionRefused.class)
                .hasMessageContaining("aangenomen -> bezorgd");
        assertThat(events(n.id())).containsExactly("1:null>aangenomen");
    }

    @Test
    void theTriggerRefusesAVersionChangeWithoutAnEventAtCommit() throws SQLException {
        Transitions.Locked n = accept();
        try (Connection c = DB.connect();
                Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE notificatie SET status = 'in-verzending', versie = 2 WHERE id = '" + n.id() + "'");
            assertThatThrownBy(c::commit)
                    .isInstanceOf(SQLException.class)
                    .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("NM002"));
        }
        assertThat(status(n.id())).isEqualTo("aangenomen:1");
    }

    @Test
    void theTriggerRefusesADisallowedPairEvenWithAnEvent() throws SQLException {
        Transitions.Locked n = accept();
        try (Connection c = DB.connect();
                Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO event (tijdstip, dv_id, notificatie, volgnummer, van, naar) VALUES (now(), '"
                    + dvId + "', '" + n.id() + "', 2, 'aangenomen', 'definitief-bezorgd')");
            assertThatThrownBy(() -> s.executeUpdate("UPDATE notificatie SET status = 'definitief-bezorgd', versie = 2"
                            + " WHERE id = '" + n.id() + "'"))
                    .isInstanceOf(SQLException.class)
                    .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("NM001"));
            c.rollback();
        }
        assertThat(status(n.id())).isEqualTo("aangenomen:1");
    }

    @Test
    void theApplicationsCopyOfTheAllowedPairsEqualsTheTriggersTable() throws SQLException {
        Set<AllowedTransitions.Pair> table = new HashSet<>();
        try (Connection c = DB.connect();
                Statement s = c.createStatement();
                ResultSet rows = s.executeQuery("SELECT van, naar FROM toegestane_overgang")) {
            while (rows.next()) {
                String from = rows.getString("van");
                table.add(new AllowedTransitions.Pair(
                        from == null ? null : NotificatieStatus.of(from),
                        NotificatieStatus.of(rows.getString("naar"))));
            }
        }
        assertThat(table).isEqualTo(AllowedTransitions.PAIRS);
    }

    private java.util.List<String> events(UUID id) throws SQLException {
        java.util.List<String> result = new java.util.ArrayList<>();
        try (Connection c = DB.connect();
                PreparedStatement s = c.prepareStatement(
                        "SELECT volgnummer, van, naar FROM event WHERE notificatie = ? ORDER BY volgnummer")) {
            s.setObject(1, id);
            try (ResultSet rows = s.executeQuery()) {
                while (rows.next()) {
                    result.add(rows.getInt(1) + ":" + rows.getString(2) + ">" + rows.getString(3));
                }
            }
        }
        return result;
    }

    private String status(UUID id) throws SQLException {
        try (Connection c = DB.connect();
                PreparedStatement s = c.prepareStatement("SELECT status, versie FROM notificatie WHERE id = ?")) {
            s.setObject(1, id);
            try (ResultSet rows = s.executeQuery()) {
                rows.next();
                return rows.getString(1) + ":" + rows.getInt(2);
            }
        }
    }
}
