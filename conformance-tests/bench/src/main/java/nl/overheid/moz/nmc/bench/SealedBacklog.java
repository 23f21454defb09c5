package nl.overheid.moz.nmc.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;
import java.util.UUID;
import nl.overheid.moz.nmc.privacy.ConfiguredKeks;
import nl.overheid.moz.nmc.privacy.Envelope;

/**
 * A large backlog of accepted notifications written straight into a benchmark database, for when the API
 * would take too long (a DV with 100,000 waiting). Each row is what the acceptance leaves: the notification
 * in {@code aangenomen} with its address and personalisation sealed by the server's own {@link Envelope}
 * under the run's KEK (so the send task opens them as it opens any other), event 1 and a due send task.
 * The HMACs and LDV pseudonyms are random: nothing looks them up. Written in chunks of {@value #CHUNK}, each
 * one transaction (the trigger wants every notification's event in its own transaction).
 */
final class SealedBacklog {

    static final int CHUNK = 2000;

    private static final String INSERT = """
            WITH n AS (
                INSERT INTO notificatie (id, dv_id, dvref_hmac, pepper_versie, payload_hmac, payload_pepper_versie,
                                         berichttype, regie, status, versie, ontvanger_versleuteld,
                                         personalisatie_versleuteld, datasleutel_gewrapt, kek_versie, trace_id,
                                         aanname_span_id, ldv_betrokkene, ldv_betrokkene_type, ldv_pepper_versie,
                                         aangenomen_op)
                SELECT u.id, CAST(? AS uuid), sha256(CAST(CAST(u.id AS text) || 'dvref' AS bytea)), 1,
                       sha256(CAST(CAST(u.id AS text) || 'payload' AS bytea)), 1, ?, 'decentraal', 'aangenomen', 1,
                       u.ontvanger, u.personalisatie, u.sleutel, ?, replace(CAST(gen_random_uuid() AS text), '-', ''),
                       substr(md5(CAST(u.id AS text)), 1, 16), encode(sha256(CAST(CAST(u.id AS text) AS bytea)), 'base64'),
                       'EMAIL', 1, now()
                  FROM unnest(CAST(? AS uuid[]), CAST(? AS bytea[]), CAST(? AS bytea[]), CAST(? AS bytea[]))
                       AS u(id, ontvanger, personalisatie, sleutel)
                RETURNING id, dv_id, trace_id
            ), e AS (
                INSERT INTO event (tijdstip, dv_id, notificatie, volgnummer, van, naar, reden)
                SELECT now(), dv_id, id, 1, NULL, 'aangenomen', NULL FROM n
            )
            INSERT INTO taak (soort, dv_id, notificatie, due, trace_id, payload, budget)
            SELECT 'verzenden', dv_id, id, now(), trace_id, CAST('{}' AS jsonb), 'standaard' FROM n
            """;

    private SealedBacklog() {}

    /** Writes {@code count} accepted notifications of the DV {@code dvId}. */
    static void write(BenchContext context, String database, String dvId, int count) throws SQLException {
        ConfiguredKeks keks = ConfiguredKeks.from(context.config().get("privacy.kek"));
        Envelope envelope = new Envelope(keks);
        try (Connection c = context.postgres().connect(database);
                PreparedStatement s = c.prepareStatement(INSERT)) {
            for (int done = 0; done < count; done += CHUNK) {
                int size = Math.min(CHUNK, count - done);
                UUID[] ids = new UUID[size];
                byte[][] ontvangers = new byte[size][];
                byte[][] personalisaties = new byte[size][];
                byte[][] sleutels = new byte[size][];
                int kek = 0;
                for (int i = 0; i < size; i++) {
                    ids[i] = UUID.randomUUID();
                    Envelope.Sealed sealed = envelope.seal(
                            ids[i],
                            Map.of(
                                    "ontvanger", "achterstand-" + (done + i) + "@example.nl",
                                    "personalisatie", "{\"naam\":\"Bedrijf " + (done + i) % 1000 + "\"}"));
                    ontvangers[i] = sealed.ciphertexts().get("ontvanger");
                    personalisaties[i] = sealed.ciphertexts().get("personalisatie");
                    sleutels[i] = sealed.wrappedKey();
                    kek = sealed.kekVersion();
                }
                s.setObject(1, UUID.fromString(dvId));
                s.setString(2, BenchContext.BERICHTTYPE);
                s.setInt(3, kek);
                s.setArray(4, c.createArrayOf("uuid", ids));
                s.setArray(5, c.createArrayOf("bytea", ontvangers));
                s.setArray(6, c.createArrayOf("bytea", personalisaties));
                s.setArray(7, c.createArrayOf("bytea", sleutels));
                s.executeUpdate();
            }
        }
    }
}
