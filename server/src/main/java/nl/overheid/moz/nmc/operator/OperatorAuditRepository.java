package nl.overheid.moz.nmc.operator;

import io.helidon.dbclient.DbTransaction;
import java.time.Instant;
import java.util.List;
import nl.overheid.moz.nmc.db.DbTypes;
import nl.overheid.moz.nmc.db.Statement;

/** The SQL of the operators' audit ({@code beheeractie}). */
public final class OperatorAuditRepository {

    private static final Statement BEHEERACTIE_INSERT = Statement.named("beheeractieInsert", """
            INSERT INTO beheeractie (tijdstip, beheerder, actie, onderwerp, toelichting, details)
            VALUES (:tijdstip, :beheerder, :actie, :onderwerp, :toelichting, CAST(:details AS jsonb))
            """);

    private static final Statement BEHEERACTIE_LIST = Statement.named("beheeractieList", """
            SELECT id, tijdstip, beheerder, actie, onderwerp, toelichting, CAST(details AS text) AS details
              FROM beheeractie
             WHERE (:before = 0 OR id < :before)
               AND (CAST(:actie AS text) IS NULL OR actie = :actie)
               AND (CAST(:van AS timestamptz) IS NULL OR tijdstip >= :van)
               AND (CAST(:tot AS timestamptz) IS NULL OR tijdstip < :tot)
             ORDER BY id DESC
             LIMIT :limit
            """);

    /* The audit is append-only for the runtime role: its retention goes through a SECURITY DEFINER function that
     * keeps the last year whatever it is asked (V22__least_privilege.sql). */
    private static final Statement BEHEERACTIE_DELETE_OLD =
            Statement.named("beheeractieDeleteOld", "SELECT beheeractie_opschonen(:before) AS geschrapt");

    /** Writes one action. */
    void insert(
            DbTransaction tx,
            Instant time,
            String operator,
            OperatorAudit.Action action,
            String subject,
            String explanation,
            String details) {
        BEHEERACTIE_INSERT
                .dml(tx)
                .addParam("tijdstip", time)
                .addParam("beheerder", operator)
                .addParam("actie", action.value())
                .addParam("onderwerp", subject)
                .addParam("toelichting", explanation)
                .addParam("details", details)
                .execute();
    }

    /** The actions the filter selects, newest first. */
    List<OperatorAudit.Entry> list(DbTransaction tx, OperatorAudit.Filter filter) {
        return BEHEERACTIE_LIST
                .query(tx)
                .addParam("before", filter.before())
                .addParam(
                        "actie",
                        filter.action() == null ? null : filter.action().value())
                .addParam("van", filter.from())
                .addParam("tot", filter.until())
                .addParam("limit", filter.limit())
                .execute()
                .map(row -> new OperatorAudit.Entry(
                        DbTypes.longValue(row, "id"),
                        DbTypes.instant(row, "tijdstip"),
                        DbTypes.text(row, "beheerder"),
                        OperatorAudit.Action.of(DbTypes.text(row, "actie")),
                        DbTypes.text(row, "onderwerp"),
                        DbTypes.text(row, "toelichting"),
                        DbTypes.text(row, "details")))
                .toList();
    }

    /** Deletes up to 1,000 actions recorded before {@code before} (and more than a year ago); returns how many. */
    long deleteOlderThan(DbTransaction tx, Instant before) {
        return BEHEERACTIE_DELETE_OLD
                .get(tx)
                .addParam("before", before)
                .execute()
                .map(row -> row.column("geschrapt").getLong())
                .orElse(0L);
    }
}
