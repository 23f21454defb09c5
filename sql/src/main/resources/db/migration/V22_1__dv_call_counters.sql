-- Every DV route is rate-limited per DV over all instances (issue 19): the feed's per-second counters get a kind,
-- so the status, search and cancel calls are counted apart from the feed's, each against its own limit.
ALTER TABLE feedaanroep RENAME TO dvaanroep;
ALTER TABLE dvaanroep RENAME CONSTRAINT feedaanroep_pkey TO dvaanroep_pkey;
ALTER TABLE dvaanroep RENAME CONSTRAINT feedaanroep_aantal_check TO dvaanroep_aantal_check;
ALTER TABLE dvaanroep RENAME CONSTRAINT feedaanroep_dv_id_fkey TO dvaanroep_dv_id_fkey;
ALTER TABLE dvaanroep ADD COLUMN soort text NOT NULL DEFAULT 'feed' CHECK (soort IN ('feed', 'notificaties'));
ALTER TABLE dvaanroep ALTER COLUMN soort DROP DEFAULT;
ALTER TABLE dvaanroep DROP CONSTRAINT dvaanroep_pkey;
ALTER TABLE dvaanroep ADD PRIMARY KEY (dv_id, soort, tijdvak);
