-- The feed's index is keyed on a 4-byte number of the DV and the transaction id (issue 20: 3 KB per notification
-- as written). Keyed on (dv_id, transactie_id, id) it cost 86 bytes per event in a steady run against 49 after
-- VACUUM FULL: each DV's events arrive at the end of that DV's range, which is the middle of the index, and a leaf
-- page split in the middle leaves both halves half full while no later key ever falls into the left one.
-- PostgreSQL recognises such a locally ascending pattern and splits after the new item instead, leaving the left page
-- full, but only for narrow entries of equal width — at most two 8-byte keys, which a 16-byte uuid already
-- fills. Hence uuid_hash(dv_id), the uuid's own 4-byte hash (its hash opclass's function, stable across versions as
-- hash indexes depend on it), and no id: 32 bytes per event in the same pattern (60,000 events of ten DVs).
-- A hash shared by two DVs costs a reader of one the other's entries, never a wrong row: every query keeps
-- e.dv_id = … beside the key. Events of one transaction share a key; the readers order them by id after the index
-- (an incremental sort of each transaction's few events).
DROP INDEX event_feed_idx;
CREATE INDEX event_feed_idx ON event (uuid_hash(dv_id), transactie_id);
