-- The operators' audit's floor (review of the privileges, L2). beheeractie_opschonen (V22) kept the last year
-- whatever it was asked, but the audit is kept as long as the notifications (retention.notifications, seven years by
-- default): a foothold in the runtime role could erase years two to seven of it. The floor is now the owner's to set,
-- as the event log's (V34): seven years by default, the retention the NMC ships; a deployment whose
-- retention.notifications is shorter lowers it as the owner, or its audit stays until the floor. Never below a year,
-- V22's floor, and never NULL: no test needs the audit aged out on an injected clock.
CREATE TABLE beheeractie_vloer (
    enkel boolean  PRIMARY KEY DEFAULT true CHECK (enkel),
    vloer interval NOT NULL CHECK (vloer >= interval '1 year')
);
COMMENT ON TABLE beheeractie_vloer IS
    'one row: no operator action younger than vloer (the database''s clock) is deleted, whatever the retention asks. '
    'Written by the schema owner only';
INSERT INTO beheeractie_vloer (vloer) VALUES (interval '7 years');

CREATE OR REPLACE FUNCTION beheeractie_opschonen(grens timestamptz) RETURNS bigint
LANGUAGE sql AS $$
    WITH weg AS (
        DELETE FROM beheeractie
         WHERE id IN (SELECT id FROM beheeractie
                       WHERE tijdstip < least(grens, now() - (SELECT v.vloer FROM beheeractie_vloer v))
                       ORDER BY tijdstip
                       LIMIT 1000)
        RETURNING 1)
    SELECT count(*) FROM weg
$$;
