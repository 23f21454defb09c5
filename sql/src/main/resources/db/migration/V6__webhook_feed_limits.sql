-- Feedback to the DVs at production grade (design §8): the webhook's delivery state, the per-DV feed rate
-- limit and the reports of unacknowledged terminal statuses.

-- The webhook's delivery position (transactie_id, event_id: the last event delivered with a 2xx) gets what
-- a pause needs: the epoch the position belongs to (after a restore it no longer means anything), the
-- number of pauses in a row (each waits longer, up to a day), the last delivery and the last failure's
-- short code (never a body of the DV's answer).
ALTER TABLE webhookpositie
    ADD COLUMN cluster_epoch int         NULL,
    ADD COLUMN pauzes        int         NOT NULL DEFAULT 0 CHECK (pauzes >= 0),
    ADD COLUMN geleverd_op   timestamptz NULL,
    ADD COLUMN laatste_fout  text        NULL CHECK (length(laatste_fout) <= 100);

-- One terugkoppelen task per DV: it delivers, then plans itself again.
CREATE UNIQUE INDEX taak_terugkoppelen_dv_uk ON taak (dv_id) WHERE soort = 'terugkoppelen';

-- Feed calls per DV per second: the rate limit is one counter in the database, so N instances together
-- allow what one allows. Rows of past seconds are removed by the maintenance duty.
CREATE TABLE feedaanroep (
    dv_id   uuid        NOT NULL REFERENCES dienstverlener (id) ON DELETE CASCADE,
    tijdvak timestamptz NOT NULL,
    aantal  int         NOT NULL CHECK (aantal > 0),
    PRIMARY KEY (dv_id, tijdvak)
);

-- The last report of unacknowledged terminal statuses on the DV's management channel (once per period).
CREATE TABLE beheermelding (
    dv_id     uuid        PRIMARY KEY REFERENCES dienstverlener (id) ON DELETE CASCADE,
    gemeld_op timestamptz NOT NULL,
    aantal    bigint      NOT NULL CHECK (aantal >= 0)
);
