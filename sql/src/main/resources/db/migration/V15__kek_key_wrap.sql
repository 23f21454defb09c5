-- Data keys are wrapped with AES key wrap (RFC 3394, 40 bytes) from now on; keys wrapped earlier with AES-GCM
-- (60 bytes) still open and are moved to key wrap by the KEK re-wrap duty. This partial index finds the ones
-- left, and is empty once they are all moved.
CREATE INDEX notificatie_gcm_wrapped_idx ON notificatie (id)
 WHERE octet_length(datasleutel_gewrapt) = 60;
