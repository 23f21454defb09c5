-- The operator API's contract takes a processing activity's URI of up to 2000 characters (BerichttypeAanvraag), as
-- the register rules do; V5 checked 500, so a longer URI the contract allows met the CHECK and was a 500.
ALTER TABLE berichttype DROP CONSTRAINT berichttype_verwerkingsactiviteit_check;
ALTER TABLE berichttype ADD CONSTRAINT berichttype_verwerkingsactiviteit_check
    CHECK (length(verwerkingsactiviteit) BETWEEN 1 AND 2000);
