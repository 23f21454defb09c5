-- Accepted notifications for the lifecycle's pgbench baseline: per DV in ?1 (uuid[]) ?2 notifications in
-- aangenomen with event 1 and a due send task, as the acceptance leaves them (sizes as acceptance.pgbench).
WITH n AS (
    INSERT INTO notificatie (id, dv_id, dvref_hmac, pepper_versie, payload_hmac, payload_pepper_versie, berichttype,
                             regie, status, versie, ontvanger_versleuteld, personalisatie_versleuteld,
                             datasleutel_gewrapt, kek_versie, trace_id, aanname_span_id, ldv_betrokkene,
                             ldv_betrokkene_type, ldv_pepper_versie, aangenomen_op)
    SELECT gen_random_uuid(), d.dv, sha256(CAST(CAST(gen_random_uuid() AS text) AS bytea)), 1,
           sha256(CAST(CAST(gen_random_uuid() AS text) AS bytea)), 1, 'bench-bericht', 'decentraal', 'aangenomen', 1,
           decode(repeat('ab', 55), 'hex'), decode(repeat('cd', 44), 'hex'), decode(repeat('ef', 60), 'hex'), 1,
           '0af7651916cd43dd8448eb211c80319c', 'b7ad6b7169203331',
           'wrHhpdj3Np6bChwtPk9aa3yNng8aKzxNXm9wgZKjtMU=', 'EMAIL', 1, now()
      FROM unnest(CAST(? AS uuid[])) AS d(dv) CROSS JOIN generate_series(1, ?) AS g
    RETURNING id, dv_id, trace_id
), e AS (
    INSERT INTO event (tijdstip, dv_id, notificatie, volgnummer, van, naar, reden)
    SELECT now(), dv_id, id, 1, NULL, 'aangenomen', NULL FROM n
)
INSERT INTO taak (soort, dv_id, notificatie, due, trace_id, payload, budget)
SELECT 'verzenden', dv_id, id, now() - interval '1 second', trace_id, CAST('{}' AS jsonb), 'standaard' FROM n
