-- The allowed (van, naar) pairs of the notification status (design §7.2), read by the trigger.
-- The application keeps a copy; a test checks the copy against this table.
-- van IS NULL is the acceptance (volgnummer 1).

CREATE TABLE toegestane_overgang (
    van     text NULL CHECK (van IN (
                'aangenomen', 'in-verzending', 'verzonden', 'bezorgd',
                'definitief-bezorgd', 'niet-bezorgbaar', 'technisch-mislukt',
                'bezorgstatus-onbekend', 'verlopen', 'geannuleerd')),
    naar    text NOT NULL CHECK (naar IN (
                'aangenomen', 'in-verzending', 'verzonden', 'bezorgd',
                'definitief-bezorgd', 'niet-bezorgbaar', 'technisch-mislukt',
                'bezorgstatus-onbekend', 'verlopen', 'geannuleerd')),
    oorzaak text NOT NULL,
    CONSTRAINT toegestane_overgang_uk UNIQUE NULLS NOT DISTINCT (van, naar)
);

INSERT INTO toegestane_overgang (van, naar, oorzaak) VALUES
    (NULL,                    'aangenomen',            'acceptance (volgnummer 1)'),
    ('aangenomen',            'in-verzending',         'claim of the first send (attempt 1 created, gepland)'),
    ('aangenomen',            'geannuleerd',           'DELETE (only possible from here)'),
    ('aangenomen',            'verlopen',              'claim after geldig_tot: not started'),
    ('aangenomen',            'technisch-mislukt',     'send task exhausted by NMC-internal failures before a claim could commit'),
    ('in-verzending',         'verzonden',             'commit after NotifyNL 201 (plans reconcile task due +1 h)'),
    ('in-verzending',         'niet-bezorgbaar',       'NotifyNL 400 (onbereikbaar); Profielservice: unknown party / no e-mail (geen-contactgegevens)'),
    ('in-verzending',         'verlopen',              'geldig_tot passes while the call is postponed (NotifyNL/Profielservice/LDV outage)'),
    ('in-verzending',         'technisch-mislukt',     'send task exhausted (NMC-internal failures)'),
    ('verzonden',             'verzonden',             'claim of the resend: new attempt 2 (an event although the status stays)'),
    ('verzonden',             'bezorgd',               'delivered on any attempt, also via a duplicate id'),
    ('verzonden',             'niet-bezorgbaar',       'permanent-failure; temporary-failure on attempt 2; resend answered 400; no contact data on resend'),
    ('verzonden',             'technisch-mislukt',     'technical-failure on attempt 2; resend task exhausted'),
    ('verzonden',             'verlopen',              'temporary-failure/technical-failure after geldig_tot; resend postponed past geldig_tot'),
    ('verzonden',             'bezorgstatus-onbekend', 'status query answers 404, or NotifyNL''s retention passes without an outcome'),
    ('bezorgd',               'definitief-bezorgd',    'finalise task after the MEBV period'),
    ('bezorgd',               'verzonden',             'temporary-failure on the attempt that bezorgd rests on, within the period, attempt 1, before geldig_tot (plans the resend)'),
    ('bezorgd',               'niet-bezorgbaar',       'permanent-failure within the period; temporary-failure within the period on attempt 2'),
    ('bezorgd',               'verlopen',              'temporary-failure within the period after geldig_tot'),
    ('bezorgstatus-onbekend', 'bezorgd',               'late delivered'),
    ('bezorgstatus-onbekend', 'niet-bezorgbaar',       'late permanent-failure');
