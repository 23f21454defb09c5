-- From this version the erasure clears a notification's batch id with its data key (seed 000: "het NMC bewaart geen
-- door de DV gekozen referentie in platte tekst"). Rows erased before it keep theirs: cleared here, once. Only rows
-- already erased that have one are touched.
UPDATE notificatie SET batch_id = NULL WHERE datasleutel_gewrapt IS NULL AND batch_id IS NOT NULL;
