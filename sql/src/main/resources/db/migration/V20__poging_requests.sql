-- How many POSTs were made for an attempt (issue 18 §10; design §7.3). An attempt POSTed more than once (a re-claim
-- after a lease expiry or an uncertain time-out, whose lookup by reference did not see the first e-mail yet) may
-- have an e-mail at NotifyNL whose id the NMC never learnt: the first claim's commit writes nothing, and the
-- duplicate's callback may be lost. Reconciliation then also asks NotifyNL by reference, to learn every id sent
-- under it.
ALTER TABLE poging ADD COLUMN verzoeken smallint NOT NULL DEFAULT 0 CHECK (verzoeken >= 0);
COMMENT ON COLUMN poging.verzoeken IS 'how many POSTs to NotifyNL were made for this attempt';
UPDATE poging SET verzoeken = 1 WHERE verzoek_gedaan_op IS NOT NULL;
