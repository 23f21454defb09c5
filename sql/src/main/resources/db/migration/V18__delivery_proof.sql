-- The delivery proof, stored apart from an attempt's latest outcome (issue 18 §2, §3; design §5, §7.3).
-- A receipt that changes nothing for the notification is now recorded on its attempt (status and completed_at),
-- so poging.ontvangst_completed_at of a bezorgd attempt no longer identifies the proof: bezorgd_op holds the
-- completed_at of the delivered that made the notification bezorgd, on the one attempt it rests on. It is the
-- first delivery: a repeated delivered moves neither it nor the finalise task.
ALTER TABLE poging ADD COLUMN bezorgd_op timestamptz NULL;

COMMENT ON COLUMN poging.bezorgd_op IS
    'the delivery proof: completed_at of the delivered that made the notification bezorgd, on the attempt it '
    'rests on (the first one); NULL on every other attempt';
COMMENT ON COLUMN poging.ontvangst_completed_at IS
    'completed_at of the last receipt recorded on the attempt (its latest outcome; orders its receipts)';

-- Until now a bezorgd attempt of a bezorgd notification was its proof (at most one attempt was bezorgd).
UPDATE poging p
   SET bezorgd_op = p.ontvangst_completed_at
  FROM notificatie n
 WHERE n.id = p.notificatie AND n.status IN ('bezorgd', 'definitief-bezorgd') AND p.status = 'bezorgd';
