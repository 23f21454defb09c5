-- A send budget per NotifyNL service (design §6): each berichttype is sent by its own NotifyNL service, with
-- that service's API key and rate limit. Every task that calls NotifyNL names the budget it spends (its
-- notification's berichttype's notify_service, set when the task is planned), so a claim takes tokens per
-- budget and a service whose window is used up never holds back another service's work. For the task engine
-- the value is an opaque key: it knows nothing of berichttypen or services.
ALTER TABLE taak ADD COLUMN budget text NULL;

UPDATE taak t
   SET budget = b.notify_service
  FROM notificatie n
  JOIN berichttype b ON b.code = n.berichttype
 WHERE t.notificatie = n.id AND t.soort IN ('verzenden', 'reconcilieren');

-- A task of a kind that calls NotifyNL cannot be claimed without knowing whose budget it spends.
ALTER TABLE taak ADD CONSTRAINT taak_budget_ck
    CHECK (soort NOT IN ('verzenden', 'reconcilieren') OR budget IS NOT NULL);

-- Claiming: per budget, then per DV, oldest due first (FOR UPDATE SKIP LOCKED on (soort, budget, dv_id, due)).
-- The budget leads the DV so that one service's backlog of a DV is never scanned past for another's.
DROP INDEX taak_claim_idx;
CREATE INDEX taak_claim_idx ON taak (soort, budget, dv_id, due) WHERE status = 'open';
