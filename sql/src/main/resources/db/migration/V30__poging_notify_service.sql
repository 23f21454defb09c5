-- The NotifyNL service an attempt was POSTed with. An operator may move a berichttype to another service while its
-- attempts run; their callbacks (with the old service's token), their status queries (with its key) and their
-- reconciliation budget still belong to the service that sent them, not to the berichttype's current one.
-- Attempts before this migration have none: the berichttype's service, as before.
ALTER TABLE poging ADD COLUMN notify_service text;
