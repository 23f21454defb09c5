-- The centralised regime against the real MOZa Profielservice (its /partij contract; issue 15).

-- The DV as the Profielservice knows it: its scoped contact data name the DV by this name (NULL: the DV's own
-- naam), and the identifier types the DV may use in the centralised regime (BSN only where its legal basis allows).
ALTER TABLE dienstverlener
    ADD COLUMN profiel_naam        text   NULL CHECK (length(profiel_naam) BETWEEN 1 AND 200),
    ADD COLUMN identificatie_typen text[] NOT NULL DEFAULT '{KVK}'
        CHECK (cardinality(identificatie_typen) >= 1 AND identificatie_typen <@ ARRAY['KVK', 'RSIN', 'BSN']);

-- The berichttype's dienst at the Profielservice (NULL: none): addresses scoped to it come first.
ALTER TABLE berichttype
    ADD COLUMN profiel_dienst_naam text NULL CHECK (length(profiel_dienst_naam) BETWEEN 1 AND 200);

-- The Profielservice's id of the address an attempt was sent to, encrypted under the notification's data key
-- like the identifying number: after a permanent failure, the invalid-address report deletes exactly that
-- contactgegeven. NULL in the decentralised regime, or when reports are not made (profielservice.invalid-address-report).
ALTER TABLE poging
    ADD COLUMN contactgegeven_versleuteld bytea NULL;
