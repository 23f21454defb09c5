-- A receipt task's receipt was in two indexes with the same entries (issue 20: no index that no query needs): the
-- unique taak_verwerken_uk (ontvangst) WHERE soort = 'verwerken', and taak_ontvangst_idx (ontvangst) WHERE ontvangst
-- IS NOT NULL for the cascade from ontvangst (whose DELETE names no soort, so it could not use the first). Only a
-- receipt task names a receipt, now a check, so one unique index over every named receipt serves both: one index
-- entry fewer for every receipt stored.
ALTER TABLE taak ADD CONSTRAINT taak_ontvangst_verwerken_ck CHECK (ontvangst IS NULL OR soort = 'verwerken');
DROP INDEX taak_ontvangst_idx;
DROP INDEX taak_verwerken_uk;
CREATE UNIQUE INDEX taak_verwerken_uk ON taak (ontvangst) WHERE ontvangst IS NOT NULL;
