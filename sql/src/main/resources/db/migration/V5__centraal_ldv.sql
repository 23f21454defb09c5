-- Centralised regime and the Logboek Dataverwerkingen (LDV).

-- From this version on no personal data is processed without an LDV record naming the data subject, which
-- is pseudonymised at acceptance. A notification accepted before cannot get such a record without being
-- decrypted outside the send task, so the migration refuses to run while any could still be sent or
-- reconciled: let them finish (or cancel them) first. The NMC may not go into production without the LDV,
-- so only test environments can hold such rows.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM notificatie
               WHERE status IN ('aangenomen', 'in-verzending', 'verzonden', 'bezorgd')) THEN
        RAISE EXCEPTION 'V5: notifications accepted before the LDV are still live; let them finish first'
            USING ERRCODE = 'NM005';
    END IF;
END
$$;

-- Every LDV record of a notification names the processing activity of its berichttype (a URI into the
-- register of processing activities). Existing rows get a placeholder; onboarding sets the real one.
ALTER TABLE berichttype
    ADD COLUMN verwerkingsactiviteit text NOT NULL
        DEFAULT 'urn:nld:nmc:verwerkingsactiviteit:niet-ingevuld' CHECK (length(verwerkingsactiviteit) BETWEEN 1 AND 500);
ALTER TABLE berichttype ALTER COLUMN verwerkingsactiviteit DROP DEFAULT;

-- The acceptance's span (W3C Trace Context) within the notification's trace (trace_id): every later call
-- about the notification, and its LDV record, is a child of it. NULL for notifications accepted before.
ALTER TABLE notificatie
    ADD COLUMN aanname_span_id text NULL CHECK (aanname_span_id ~ '^[0-9a-f]{16}$');

-- The notification's data subject as every LDV record names it: pseudonymised at acceptance with
-- HMAC-SHA256 under the LDV's own pepper (the type names the pepper version), so that reconciliation can
-- write its records without decrypting anything. Pseudonymous personal data, like dvref_hmac, and the same
-- for one party across DVs (the LDV must find every processing about a subject): the erasure of a
-- notification clears it together with the data key.
ALTER TABLE notificatie
    ADD COLUMN ldv_betrokkene      text NULL CHECK (ldv_betrokkene ~ '^[0-9a-f]{64}$'),
    ADD COLUMN ldv_betrokkene_type text NULL CHECK (length(ldv_betrokkene_type) <= 100);
