-- Every permanent failure of a centralised notification is reported, once per attempt (issue 18 §4; design §6).
-- ADR 0024: "Bij gecentraliseerde regie volgt direct op permanent-failure een taak die het e-mailadres ... ongeldig
-- meldt". Only a permanent-failure that moved the notification planned the report, at most one per notification
-- (the one-per-kind unique index): a bounce after the MEBV period, one under a duplicate id of an attempt that no
-- longer ran, or the second attempt's while the first one's report was open left the dead address in place.

-- When the attempt's report was planned (the NMC's clock): each attempt went to one address, reported once.
ALTER TABLE poging ADD COLUMN ongeldig_gemeld_op timestamptz NULL;
COMMENT ON COLUMN poging.ongeldig_gemeld_op IS
    'when the report of the address this attempt went to was planned (centralised regime, after a permanent-failure); '
    'NULL: none';
UPDATE poging p SET ongeldig_gemeld_op = t.aangemaakt_op
  FROM taak t
 WHERE t.soort = 'ongeldig-melden' AND t.poging = p.id;

-- Reports are one per attempt, no longer one per notification.
DROP INDEX taak_notificatie_soort_uk;
CREATE UNIQUE INDEX taak_notificatie_soort_uk ON taak (notificatie, soort)
    WHERE notificatie IS NOT NULL AND soort NOT IN ('verwerken', 'ongeldig-melden');
CREATE UNIQUE INDEX taak_ongeldig_melden_uk ON taak (poging) WHERE soort = 'ongeldig-melden';
ALTER TABLE taak ADD CONSTRAINT taak_ongeldig_melden_poging_ck CHECK (soort <> 'ongeldig-melden' OR poging IS NOT NULL);
