-- A receipt task per stored receipt (issue 18 §9; design §5, §6). Before, a verwerken task was unique per
-- (attempt, receipt completed_at): a second receipt of the same attempt and completed_at (NotifyNL's id of a
-- duplicate e-mail) stored while the processor of the first was finishing met that task's key, planned
-- nothing, and waited for the control duty. Now every stored receipt plans its own task; the processor that
-- applies it deletes the tasks of every receipt it applied, so a sibling's task finds nothing left to do.
DROP INDEX taak_verwerken_uk;
CREATE UNIQUE INDEX taak_verwerken_uk ON taak (ontvangst) WHERE soort = 'verwerken';

-- Every receipt task names its receipt (the receipt store and the control duty always set it).
ALTER TABLE taak ADD CONSTRAINT taak_verwerken_ontvangst_ck CHECK (soort <> 'verwerken' OR ontvangst IS NOT NULL);

COMMENT ON COLUMN taak.ontvangst_completed_at IS
    'the completed_at of the receipt a verwerken task was planned for (informative; no longer a key)';
