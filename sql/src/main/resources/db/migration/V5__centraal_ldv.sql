-- Centralised regime and the Logboek Dataverwerkingen (LDV).

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
-- write its records without decrypting anything. Pseudonymous, like dvref_hmac; erased with the row.
ALTER TABLE notificatie
    ADD COLUMN ldv_betrokkene      text NULL CHECK (ldv_betrokkene ~ '^[0-9a-f]{64}$'),
    ADD COLUMN ldv_betrokkene_type text NULL CHECK (length(ldv_betrokkene_type) <= 100);
