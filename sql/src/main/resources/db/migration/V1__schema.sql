-- NMC schema (design §5). Plain PostgreSQL 15, default schema.
-- The Java code is written against exactly these names.

-- ---------------------------------------------------------------------------------------------
-- DV register
-- ---------------------------------------------------------------------------------------------

CREATE TABLE dienstverlener (
    id                       uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    oin                      text        NOT NULL UNIQUE CHECK (oin ~ '^[0-9]{20}$'),
    naam                     text        NOT NULL,
    quotum_per_minuut        int         NOT NULL DEFAULT 600 CHECK (quotum_per_minuut > 0),
    webhook_url              text        NULL,
    bevestigingstermijn      interval    NOT NULL DEFAULT '7 days' CHECK (bevestigingstermijn > interval '0'),
    max_cursorleeftijd       interval    NOT NULL DEFAULT '30 days' CHECK (max_cursorleeftijd > interval '0'),
    beheerkanaal             text        NULL,
    webhook_max_mislukkingen int         NOT NULL DEFAULT 10 CHECK (webhook_max_mislukkingen > 0),
    aangemaakt_op            timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE berichttype (
    code                 text     PRIMARY KEY CHECK (code ~ '^[a-z0-9][a-z0-9-]*$'),
    notify_template_id   uuid     NOT NULL,
    notify_service       text     NOT NULL DEFAULT 'standaard',
    standaard_geldigheid interval NULL CHECK (standaard_geldigheid > interval '0'),
    max_pogingenteller   int      NOT NULL DEFAULT 5 CHECK (max_pogingenteller > 0)
);

-- the berichttypen a DV may send
CREATE TABLE dienstverlener_berichttype (
    dv_id       uuid NOT NULL REFERENCES dienstverlener (id) ON DELETE CASCADE,
    berichttype text NOT NULL REFERENCES berichttype (code),
    PRIMARY KEY (dv_id, berichttype)
);

-- ---------------------------------------------------------------------------------------------
-- Source of truth: notificatie and poging
-- ---------------------------------------------------------------------------------------------

CREATE TABLE notificatie (
    id                         uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    dv_id                      uuid        NOT NULL REFERENCES dienstverlener (id),
    dvref_hmac                 bytea       NOT NULL,
    pepper_versie              smallint    NOT NULL,
    payload_hmac               bytea       NOT NULL,
    batch_id                   text        NULL,
    berichttype                text        NOT NULL REFERENCES berichttype (code),
    regie                      text        NOT NULL CHECK (regie IN ('decentraal', 'centraal')),
    status                     text        NOT NULL CHECK (status IN (
                                   'aangenomen', 'in-verzending', 'verzonden', 'bezorgd',
                                   'definitief-bezorgd', 'niet-bezorgbaar', 'technisch-mislukt',
                                   'bezorgstatus-onbekend', 'verlopen', 'geannuleerd')),
    versie                     int         NOT NULL CHECK (versie >= 1),
    laatste_reden              text        NULL CHECK (laatste_reden IN (
                                   'onbereikbaar', 'geen-contactgegevens', 'verlopen', 'geannuleerd',
                                   'technisch')),
    geldig_tot                 timestamptz NULL,
    ontvanger_versleuteld      bytea       NOT NULL,
    personalisatie_versleuteld bytea       NOT NULL,
    datasleutel_gewrapt        bytea       NULL,          -- NULL = erased (design §10)
    kek_versie                 smallint    NOT NULL,
    trace_id                   text        NOT NULL,
    aangenomen_op              timestamptz NOT NULL
    -- delivery-proof times are not stored twice: they are poging.ontvangst_completed_at and event.tijdstip
);

COMMENT ON COLUMN notificatie.datasleutel_gewrapt IS 'wrapped per-notification data key; NULL = erased';

-- idempotency of the acceptance: (dvId, dvRef-HMAC, payload-HMAC)
CREATE UNIQUE INDEX notificatie_idempotentie_uk ON notificatie (dv_id, dvref_hmac, payload_hmac);
-- list by dvRef
CREATE INDEX notificatie_dvref_idx ON notificatie (dv_id, dvref_hmac);
-- operations: notifications whose outcome could not be established
CREATE INDEX notificatie_onbekend_idx ON notificatie (dv_id) WHERE status = 'bezorgstatus-onbekend';
-- quota per DV at acceptance: acceptances in the last minute
CREATE INDEX notificatie_dv_aangenomen_idx ON notificatie (dv_id, aangenomen_op);
-- control task: scan of the non-terminal notifications
CREATE INDEX notificatie_actief_idx ON notificatie (status)
    WHERE status IN ('aangenomen', 'in-verzending', 'verzonden', 'bezorgd');

CREATE TABLE poging (
    id                     uuid        PRIMARY KEY DEFAULT gen_random_uuid(),  -- = NotifyNL 'reference'
    notificatie            uuid        NOT NULL REFERENCES notificatie (id) ON DELETE CASCADE,
    nummer                 smallint    NOT NULL CHECK (nummer IN (1, 2)),
    status                 text        NOT NULL CHECK (status IN (
                               'gepland', 'verzonden', 'bezorgd', 'tijdelijk-mislukt',
                               'permanent-mislukt', 'technisch-mislukt', 'onbekend')),
    notify_id              uuid        NULL,
    duplicaat_notify_ids   uuid[]      NOT NULL DEFAULT '{}',
    verzonden_op           timestamptz NULL,
    -- when a POST to NotifyNL was first made for this attempt: from then on it may be at NotifyNL, so a
    -- re-claim searches by reference first and an uncertain failure never ends the notification blindly
    verzoek_gedaan_op      timestamptz NULL,
    ontvangst_completed_at timestamptz NULL,   -- completed_at of the last applied receipt
    aangemaakt_op          timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT poging_notificatie_nummer_uk UNIQUE (notificatie, nummer)
);

-- ---------------------------------------------------------------------------------------------
-- Receipt store: receipts stored before processing; never the e-mail address
-- ---------------------------------------------------------------------------------------------

CREATE TABLE ontvangst (
    id                bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    poging            uuid        NOT NULL REFERENCES poging (id) ON DELETE CASCADE,
    notify_id         uuid        NOT NULL,
    status            text        NOT NULL,           -- free text: unknown statuses are stored too
    notify_created_at timestamptz NULL,
    completed_at      timestamptz NULL,
    sent_at           timestamptz NULL,
    notification_type text        NULL,
    template_id       uuid        NULL,
    template_version  int         NULL,
    ontvangen_op      timestamptz NOT NULL DEFAULT now(),
    verwerkt_op       timestamptz NULL,
    -- NotifyNL's retries of the same callback are stored once
    CONSTRAINT ontvangst_dedup_uk UNIQUE NULLS NOT DISTINCT (poging, notify_id, status, completed_at)
);
-- the control duty looks for stored receipts that were never processed
CREATE INDEX ontvangst_onverwerkt_idx ON ontvangst (poging) WHERE verwerkt_op IS NULL;

-- ---------------------------------------------------------------------------------------------
-- Task engine (design §6)
-- ---------------------------------------------------------------------------------------------

CREATE TABLE taak (
    id                     bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    soort                  text        NOT NULL CHECK (soort IN (
                               'verzenden', 'verwerken', 'reconcilieren', 'vaststellen',
                               'ongeldig-melden', 'terugkoppelen', 'controle', 'onderhoud', 'wissen',
                               'herwrappen')),
    dv_id                  uuid        NULL,
    notificatie            uuid        NULL REFERENCES notificatie (id) ON DELETE CASCADE,
    poging                 uuid        NULL REFERENCES poging (id) ON DELETE CASCADE,
    ontvangst              bigint      NULL REFERENCES ontvangst (id) ON DELETE CASCADE,
    ontvangst_completed_at timestamptz NULL,
    due                    timestamptz NOT NULL,
    lease_tot              timestamptz NULL,
    claim_epoch            bigint      NOT NULL DEFAULT 0,
    pogingenteller         int         NOT NULL DEFAULT 0,
    trace_id               text        NULL,
    status                 text        NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'mislukt')),
    laatste_fout           text        NULL,          -- short error class/code, never personal data
    payload                jsonb       NOT NULL DEFAULT '{}',  -- no contact data, numbers or content
    aangemaakt_op          timestamptz NOT NULL DEFAULT now()
);

-- prevents double planning (receipt tasks are outside it)
CREATE UNIQUE INDEX taak_notificatie_soort_uk ON taak (notificatie, soort)
    WHERE notificatie IS NOT NULL AND soort <> 'verwerken';
-- receipt tasks: unique per (attempt, receipt completed_at)
CREATE UNIQUE INDEX taak_verwerken_uk ON taak (poging, ontvangst_completed_at)
    WHERE soort = 'verwerken';
-- claiming: FOR UPDATE SKIP LOCKED on (soort, dv_id, due)
CREATE INDEX taak_claim_idx ON taak (soort, dv_id, due) WHERE status = 'open';
-- operations: tasks parked for an operator
CREATE INDEX taak_mislukt_idx ON taak (soort) WHERE status = 'mislukt';
-- foreign-key lookups (cascading deletes, "task of this notification/attempt")
CREATE INDEX taak_notificatie_idx ON taak (notificatie) WHERE notificatie IS NOT NULL;
CREATE INDEX taak_poging_idx ON taak (poging) WHERE poging IS NOT NULL;
CREATE INDEX taak_ontvangst_idx ON taak (ontvangst) WHERE ontvangst IS NOT NULL;

-- send budget: token bucket per Notify service per one-minute window
CREATE TABLE verzendbudget (
    notify_service text        NOT NULL,
    venster        timestamptz NOT NULL,   -- start of the one-minute window
    resterend      int         NOT NULL CHECK (resterend >= 0),
    laatst_toegekend int       NOT NULL DEFAULT 0,  -- what the last take got (one-statement take)
    PRIMARY KEY (notify_service, venster)
);

-- ---------------------------------------------------------------------------------------------
-- Event log (design §2, §8): partitioned on ranges of transactie_id
-- ---------------------------------------------------------------------------------------------

CREATE TABLE event (
    id            bigint      GENERATED ALWAYS AS IDENTITY,
    transactie_id xid8        NOT NULL DEFAULT pg_current_xact_id(),
    tijdstip      timestamptz NOT NULL DEFAULT now(),
    dv_id         uuid        NOT NULL,
    notificatie   uuid        NOT NULL,   -- no FK: the log has its own retention
    volgnummer    int         NOT NULL CHECK (volgnummer >= 1),
    van           text        NULL CHECK (van IN (
                                  'aangenomen', 'in-verzending', 'verzonden', 'bezorgd',
                                  'definitief-bezorgd', 'niet-bezorgbaar', 'technisch-mislukt',
                                  'bezorgstatus-onbekend', 'verlopen', 'geannuleerd')),
    naar          text        NOT NULL CHECK (naar IN (
                                  'aangenomen', 'in-verzending', 'verzonden', 'bezorgd',
                                  'definitief-bezorgd', 'niet-bezorgbaar', 'technisch-mislukt',
                                  'bezorgstatus-onbekend', 'verlopen', 'geannuleerd')),
    reden         text        NULL CHECK (reden IN (
                                  'onbereikbaar', 'geen-contactgegevens', 'verlopen', 'geannuleerd',
                                  'technisch')),
    PRIMARY KEY (transactie_id, id)
) PARTITION BY RANGE (transactie_id);

-- feed: the caller's events ordered by (transactie_id, id)
CREATE INDEX event_feed_idx ON event (dv_id, transactie_id, id);
-- trigger check and history per notification
CREATE INDEX event_notificatie_idx ON event (notificatie, volgnummer);

-- First partition: from xid 0 to a bound well above the current xid (next multiple of 10,000,000
-- above the current xid, plus 10,000,000). Maintenance creates the next partitions; the DEFAULT
-- partition catches anything outside.
DO $$
DECLARE
    huidig bigint := pg_current_xact_id()::text::bigint;
    grens  bigint := (huidig / 10000000 + 1) * 10000000 + 10000000;
BEGIN
    EXECUTE format('CREATE TABLE event_p0 PARTITION OF event FOR VALUES FROM (%L) TO (%L)',
                   '0', grens::text);
END
$$;

CREATE TABLE event_default PARTITION OF event DEFAULT;

-- ---------------------------------------------------------------------------------------------
-- Feed positions
-- ---------------------------------------------------------------------------------------------

-- the acknowledgement the DV writes (PUT bevestiging)
CREATE TABLE bevestiging (
    dv_id         uuid        PRIMARY KEY REFERENCES dienstverlener (id) ON DELETE CASCADE,
    cursor        text        NOT NULL,
    cluster_epoch int         NOT NULL,
    transactie_id xid8        NOT NULL,
    event_id      bigint      NOT NULL,
    tijdstip      timestamptz NOT NULL
);

-- webhook delivery position per DV
CREATE TABLE webhookpositie (
    dv_id          uuid        PRIMARY KEY REFERENCES dienstverlener (id) ON DELETE CASCADE,
    transactie_id  xid8        NULL,
    event_id       bigint      NULL,
    mislukkingen   int         NOT NULL DEFAULT 0 CHECK (mislukkingen >= 0),
    gepauzeerd_tot timestamptz NULL
);

-- single row: raised by an operator after a restore or promotion where the xid sequence breaks
CREATE TABLE cluster_epoch (
    id    boolean PRIMARY KEY DEFAULT true CHECK (id),
    epoch int     NOT NULL DEFAULT 1
);
INSERT INTO cluster_epoch (id, epoch) VALUES (true, 1);
