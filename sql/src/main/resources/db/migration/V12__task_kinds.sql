-- The task kinds that are rows: the periodic duties (control, partition upkeep and retention, re-wrapping)
-- run as duties, not as tasks, so their kinds never had a row and are no longer allowed (design §6).
ALTER TABLE taak DROP CONSTRAINT taak_soort_check;
ALTER TABLE taak ADD CONSTRAINT taak_soort_check CHECK (soort IN (
    'verzenden', 'verwerken', 'reconcilieren', 'vaststellen', 'ongeldig-melden', 'terugkoppelen', 'wissen'));
