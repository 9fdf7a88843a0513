-- Erasures: the audit record of Memory.forget, the one exception to append-only. Ids,
-- counts and times only, never content.
CREATE TABLE erasures (
    erasure_id   TEXT PRIMARY KEY,
    scope        TEXT NOT NULL,
    kind         TEXT NOT NULL CHECK (kind IN ('scope', 'sessions', 'entities')),
    targets_json TEXT NOT NULL,
    counts_json  TEXT NOT NULL,
    erased_at    TEXT NOT NULL
);
