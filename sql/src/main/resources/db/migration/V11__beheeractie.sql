-- The operator API's audit (README §11): one row per action an operator took (who, what, when, why). The
-- subject names a task, a DV, a berichttype, a pepper version or a notification id (pseudonymous, like the
-- event log); never an address, a number, a dvRef or content. Rows are deleted by the audit's own duty
-- (beheer/BeheerAudit) after retention.notifications, the delivery-proof retention.
CREATE TABLE beheeractie (
    id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tijdstip    timestamptz NOT NULL,
    beheerder   text        NOT NULL CHECK (length(beheerder) BETWEEN 1 AND 200),
    actie       text        NOT NULL CHECK (actie IN (
                                'taken-heropenen', 'overgang-forceren', 'dienstverlener-vastleggen',
                                'berichttype-vastleggen', 'webhook-hervatten', 'cluster-epoch-verhogen',
                                'kek-herwrappen', 'pepper-compromitteren')),
    onderwerp   text        NOT NULL CHECK (length(onderwerp) BETWEEN 1 AND 200),
    toelichting text        NOT NULL CHECK (length(toelichting) BETWEEN 1 AND 1000),
    details     jsonb       NOT NULL DEFAULT '{}'
);

-- the audit is read newest first, optionally by action
CREATE INDEX beheeractie_tijdstip_idx ON beheeractie (tijdstip, id);
CREATE INDEX beheeractie_actie_idx ON beheeractie (actie, tijdstip, id);
