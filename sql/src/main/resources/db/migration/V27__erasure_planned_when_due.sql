-- A notification's erasure task is planned when its erasure is due, not when it becomes terminal (issue 20: 3 KB
-- per notification as written). Planned at the terminal transition, every completed notification kept a wissen
-- row in taak for the erasure period (30 days by default): the largest part of taak in a steady run (~330 bytes a
-- notification with its four index entries), and rows that kept the pages of the short-lived tasks around them
-- from ever emptying. The timer was always data on the notification as well — terminaal_sinds, written by the
-- transition function in the same transaction — so the retention duty now plans each wissen task once
-- terminaal_sinds plus the erasure period has come, due at that moment (retention/RetentionRepository).
--
-- This index is the duty's scan: the terminal notifications that still have their key, by terminal time. Erased
-- notifications, kept for the delivery-proof retention (years), leave it, so the scan never walks them; live ones
-- (no terminal time yet) are not in it. wissen tasks planned before this migration stay as they are and still run
-- at their due.
CREATE INDEX notificatie_te_wissen_idx ON notificatie (terminaal_sinds)
    WHERE terminaal_sinds IS NOT NULL AND datasleutel_gewrapt IS NOT NULL;
