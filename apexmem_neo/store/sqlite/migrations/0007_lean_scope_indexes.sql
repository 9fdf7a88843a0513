-- Per-scope indexes on the big tables cost every ingested row one more B-tree insert (the
-- graph benchmark's ingest lost that much), while reads reach rows by entity, turn or event
-- id and filter the scope on the row. Only sessions keep a scope index.
DROP INDEX IF EXISTS turns_scope;
DROP INDEX IF EXISTS evidence_scope;
DROP INDEX IF EXISTS events_scope;
DROP INDEX IF EXISTS facts_scope;
