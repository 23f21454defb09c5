-- The privacy lifecycle (design §9, §10): erasure a fixed period after the terminal status, deletion after
-- the delivery-proof retention, KEK rotation, and a pepper per purpose whose versions can be compromised.

-- When the notification last became terminal (the transition function sets it, and clears it when a late
-- receipt moves bezorgstatus-onbekend back to bezorgd). Erasure and retention count from here.
ALTER TABLE notificatie ADD COLUMN terminaal_sinds timestamptz NULL;
UPDATE notificatie n
   SET terminaal_sinds = coalesce((SELECT max(e.tijdstip) FROM event e WHERE e.notificatie = n.id), now())
 WHERE n.status IN ('definitief-bezorgd', 'niet-bezorgbaar', 'technisch-mislukt', 'bezorgstatus-onbekend',
                    'verlopen', 'geannuleerd');

-- A pepper per purpose, each versioned: pepper_versie is the dvRef HMAC's; the payload HMAC and the LDV
-- pseudonym get their own. Rows from before computed the payload HMAC under the dvRef pepper of the same
-- version (the NMC had no production rows then: V5 requires the LDV).
ALTER TABLE notificatie
    ADD COLUMN payload_pepper_versie smallint NULL,
    ADD COLUMN ldv_pepper_versie     smallint NULL;
UPDATE notificatie SET payload_pepper_versie = pepper_versie;
UPDATE notificatie SET ldv_pepper_versie = CAST(substring(ldv_betrokkene_type FROM 'pepper-v([0-9]+)') AS smallint)
 WHERE ldv_betrokkene_type IS NOT NULL;
ALTER TABLE notificatie ALTER COLUMN payload_pepper_versie SET NOT NULL;

-- Erasure and retention find their rows by time; KEK rotation by version among the rows that still have a key.
CREATE INDEX notificatie_terminaal_idx ON notificatie (terminaal_sinds) WHERE terminaal_sinds IS NOT NULL;
CREATE INDEX notificatie_kek_idx ON notificatie (kek_versie) WHERE datasleutel_gewrapt IS NOT NULL;

-- Pepper versions an operator marked compromised: no new row uses them, and the rows under them are erased
-- early (their wrapped data keys and LDV pseudonyms).
CREATE TABLE pepper_gecompromitteerd (
    doel          text        NOT NULL CHECK (doel IN ('dvref', 'payload', 'ldv')),
    versie        smallint    NOT NULL,
    gemarkeerd_op timestamptz NOT NULL,
    PRIMARY KEY (doel, versie)
);
