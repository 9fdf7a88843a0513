-- Scopes: every row names the user or agent it belongs to. Rows written before scopes
-- belong to the scope 'default' (whose entity and property ids hash no scope, so they keep
-- their ids). Reads filter on scope; GraphQuery sees the tables through per-scope views.
ALTER TABLE sessions ADD COLUMN scope TEXT NOT NULL DEFAULT 'default';
ALTER TABLE turns ADD COLUMN scope TEXT NOT NULL DEFAULT 'default';
ALTER TABLE entities ADD COLUMN scope TEXT NOT NULL DEFAULT 'default';
-- A property name is unique per scope, not overall: the table is rebuilt (SQLite cannot drop
-- a UNIQUE constraint); the runner turns foreign keys off around a migration for this.
CREATE TABLE properties_scoped (
    property_id      TEXT PRIMARY KEY,
    name             TEXT NOT NULL,
    dtype            TEXT NOT NULL,
    enum_values_json TEXT NOT NULL,
    description      TEXT NOT NULL,
    recorded_at      TEXT NOT NULL,
    scope            TEXT NOT NULL DEFAULT 'default',
    UNIQUE (scope, name)
);
INSERT INTO properties_scoped
SELECT property_id, name, dtype, enum_values_json, description, recorded_at, 'default'
FROM properties;
DROP TABLE properties;
ALTER TABLE properties_scoped RENAME TO properties;
ALTER TABLE evidence ADD COLUMN scope TEXT NOT NULL DEFAULT 'default';
ALTER TABLE events ADD COLUMN scope TEXT NOT NULL DEFAULT 'default';
ALTER TABLE event_participants ADD COLUMN scope TEXT NOT NULL DEFAULT 'default';
ALTER TABLE facts ADD COLUMN scope TEXT NOT NULL DEFAULT 'default';
DROP INDEX entities_norm_name;
CREATE INDEX entities_norm_name ON entities (scope, norm_name, entity_type);
CREATE INDEX sessions_scope ON sessions (scope);
CREATE INDEX turns_scope ON turns (scope);
CREATE INDEX evidence_scope ON evidence (scope);
CREATE INDEX events_scope ON events (scope);
CREATE INDEX facts_scope ON facts (scope);
