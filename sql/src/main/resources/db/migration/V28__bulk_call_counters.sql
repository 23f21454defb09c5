-- A DV's bulk calls are rate-limited over all instances too (issue 19): a bulk call's repeats count against no
-- quota, so a DV that sends the same maximal bulk call again and again was limited only by the concurrency caps,
-- and kept a core of every instance busy. Counted per second as the other kinds, against their own limit.
ALTER TABLE dvaanroep DROP CONSTRAINT dvaanroep_soort_check;
ALTER TABLE dvaanroep ADD CONSTRAINT dvaanroep_soort_check CHECK (soort IN ('feed', 'notificaties', 'bulk'));
