-- A DV's single acceptances that store nothing are rate-limited over all instances too (issue 19): a repeat, or a
-- body refused, counts against no quota, so a DV sending them again and again was limited only by the concurrency
-- caps and kept the cores of every instance busy. Counted per second after the answer, against their own limit.
ALTER TABLE dvaanroep DROP CONSTRAINT dvaanroep_soort_check;
ALTER TABLE dvaanroep ADD CONSTRAINT dvaanroep_soort_check
    CHECK (soort IN ('feed', 'notificaties', 'bulk', 'herhaling'));
