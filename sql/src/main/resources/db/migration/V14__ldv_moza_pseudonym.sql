-- The processing log as MOZa writes it (issue 16): the data subject of a record is pseudonymised the way MOZa's
-- services compute dpl.core.data_subject_id, Base64 (standard alphabet, padded) of HMAC-SHA256 over the number or
-- the e-mail address itself under the LDV pepper, with the identifier's type (KVK, RSIN, BSN, EMAIL) beside it. Until
-- now the NMC stored a hex HMAC over "kind\0value" with a type such as 'KVK;hmac-sha256;pepper-v1'.

-- An old pseudonym cannot be computed again without decrypting the number or address, which only the send task and
-- the invalid-address report may do. So the migration refuses while a notification with one still has work that
-- writes records about it (any task but its erasure): let it finish first. Nothing of the NMC runs in production
-- with such rows (its LDV client wrote to a service that does not exist).
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM notificatie n
               WHERE n.ldv_betrokkene ~ '^[0-9a-f]{64}$'
                 AND EXISTS (SELECT 1 FROM taak t WHERE t.notificatie = n.id AND t.soort <> 'wissen')) THEN
        RAISE EXCEPTION 'V14: notifications with an old LDV pseudonym still have work; let them finish first'
            USING ERRCODE = 'NM005';
    END IF;
END
$$;

ALTER TABLE notificatie
    DROP CONSTRAINT notificatie_ldv_betrokkene_check,
    DROP CONSTRAINT notificatie_ldv_betrokkene_type_check;

-- Finished notifications keep no old pseudonym (as their erasure would); their type takes the new spelling.
UPDATE notificatie SET ldv_betrokkene = NULL WHERE ldv_betrokkene ~ '^[0-9a-f]{64}$';
UPDATE notificatie
   SET ldv_betrokkene_type = CASE split_part(ldv_betrokkene_type, ';', 1)
                                 WHEN 'kvk-nummer' THEN 'KVK'
                                 WHEN 'emailadres' THEN 'EMAIL'
                                 ELSE split_part(ldv_betrokkene_type, ';', 1)
                             END
 WHERE ldv_betrokkene_type LIKE '%;%';

ALTER TABLE notificatie
    ADD CONSTRAINT notificatie_ldv_betrokkene_check CHECK (ldv_betrokkene ~ '^[A-Za-z0-9+/]{43}=$'),
    ADD CONSTRAINT notificatie_ldv_betrokkene_type_check
        CHECK (ldv_betrokkene_type IN ('KVK', 'RSIN', 'BSN', 'EMAIL'));
