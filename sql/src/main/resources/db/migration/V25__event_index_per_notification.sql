-- The event log's index per notification names the notification alone (issue 20: 3 KB per notification as
-- written). Every query that reads it asks for the events of one notification — the trigger's check (NM002: the
-- event of this version in this transaction), the status view's definitief_op — and they are a handful, so the
-- volgnummer on the row serves as well as in the key. Keyed on (notificatie, volgnummer) each event was an entry of
-- its own, and random notification ids split the leaf pages half-full: 261 bytes per notification of five events
-- (12,000 notifications, their events written interleaved as a steady run writes them). Keyed on the notification
-- alone, its events share one key, which B-tree deduplication stores once with a list of row pointers: 97 bytes.
-- The index never enforced uniqueness (the trigger and the transition function decide the volgnummer), so nothing
-- is lost.
DROP INDEX event_notificatie_idx;
CREATE INDEX event_notificatie_idx ON event (notificatie);
