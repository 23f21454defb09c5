-- NotifyNL as it really answers (issue 17).

-- A send budget closed until a moment (design §6): NotifyNL's daily limit of a service is used up, so the budget's
-- claims take no tokens until the limit's window has passed and the engine does not keep knocking. To the engine
-- the budget is an opaque key (the bucket, e.g. 'standaard/sending'); why it is closed is the planner's business.
CREATE TABLE verzendbudget_sluiting (
    budget       text        PRIMARY KEY CHECK (length(budget) BETWEEN 1 AND 200),
    gesloten_tot timestamptz NOT NULL,
    gesloten_op  timestamptz NOT NULL,
    reden        text        NOT NULL CHECK (length(reden) BETWEEN 1 AND 100)
);

-- The placeholders of the NotifyNL templates the berichttypen name, as NotifyNL's GET /v2/template/{id} lists them
-- (its personalisation), so acceptance refuses a notification that lacks one. Refreshed by a duty; a template
-- NotifyNL does not know is kept with gevonden = false (acceptance then checks nothing; the send is parked).
CREATE TABLE sjabloon (
    notify_service text        NOT NULL CHECK (length(notify_service) BETWEEN 1 AND 100),
    template_id    uuid        NOT NULL,
    gevonden       boolean     NOT NULL,
    velden         text[]      NOT NULL DEFAULT '{}',
    versie         int         NULL,
    opgehaald_op   timestamptz NOT NULL,
    PRIMARY KEY (notify_service, template_id)
);
