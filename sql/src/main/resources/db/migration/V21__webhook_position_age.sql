-- A webhook position no longer holds the event log for ever (issue 18 §8; design §10). Until now every webhook
-- position counted in event_partition_needed (V7), so a webhook that failed for good kept every DV's pseudonymous
-- events past the retention. Now a webhook position counts, like an acknowledgement, only while its DV has a webhook
-- and while it moved within the DV's max cursor age: its age is its last delivery (geleverd_op) or, before any, when
-- it was made (aangemaakt_op, the NMC's clock; a row from before is stamped by the webhook duty, and counts until
-- then). Removing a DV's webhook removes its position (and its terugkoppelen task).
ALTER TABLE webhookpositie ADD COLUMN aangemaakt_op timestamptz NULL;
COMMENT ON COLUMN webhookpositie.aangemaakt_op IS
    'when the position was made (the NMC''s clock); with geleverd_op, its last move, its age';

CREATE OR REPLACE FUNCTION event_partition_needed(partitie text, nu timestamptz) RETURNS boolean
LANGUAGE plpgsql STABLE AS $$
DECLARE
    nodig boolean;
BEGIN
    EXECUTE format($q$
        SELECT EXISTS (
            SELECT 1
              FROM (SELECT b.dv_id, b.transactie_id, b.event_id
                      FROM bevestiging b
                      JOIN dienstverlener d ON d.id = b.dv_id
                     WHERE b.cluster_epoch = (SELECT epoch FROM cluster_epoch)
                       AND b.tijdstip >= $1 - d.max_cursorleeftijd
                    UNION ALL
                    SELECT w.dv_id, COALESCE(w.transactie_id, '0'), COALESCE(w.event_id, 0)
                      FROM webhookpositie w
                      JOIN dienstverlener d ON d.id = w.dv_id
                     WHERE d.webhook_url IS NOT NULL
                       AND COALESCE(w.geleverd_op, w.aangemaakt_op, $1) >= $1 - d.max_cursorleeftijd) p
             WHERE EXISTS (SELECT 1 FROM %I e
                            WHERE e.dv_id = p.dv_id
                              AND (e.transactie_id, e.id) >= (p.transactie_id, p.event_id)))
        $q$, partitie) USING nu INTO nodig;
    RETURN nodig;
END
$$;

COMMENT ON FUNCTION event_partition_needed(text, timestamptz) IS
    'whether an acknowledgement (current epoch, within its DV''s max cursor age) or a webhook position (its DV has a '
    'webhook, moved within the max cursor age) still needs the partition: an event of its DV in it at or after it';
