-- The LDV store's table as the NMC creates it (ldv/PostgresSpanRepository, the layout of MOZa's LDV wrapper), in the
-- engine benchmark's database, for the baseline's insert of each send's record (lifecycle.pgbench, step 2b).
CREATE TABLE IF NOT EXISTS ldv_spans (
    trace_id text NOT NULL,
    span_id text NOT NULL,
    status text NOT NULL,
    "name" text NOT NULL,
    start_time bigint NOT NULL,
    end_time bigint NOT NULL,
    parent_span_id text,
    attributes jsonb,
    resource jsonb,
    PRIMARY KEY (trace_id, span_id)
)
