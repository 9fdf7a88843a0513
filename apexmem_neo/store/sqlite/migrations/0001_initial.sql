-- 0001: the paper's tables. Column names are also the Neo4j node property names.
-- Times are TEXT 'YYYY-MM-DDTHH:MM:SS' (UTC), so text order is time order.

CREATE TABLE sessions (
    session_id      TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL,
    seq             INTEGER NOT NULL,
    started_at      TEXT,
    recorded_at     TEXT NOT NULL
);

CREATE TABLE turns (
    turn_id         TEXT PRIMARY KEY,
    session_id      TEXT NOT NULL REFERENCES sessions (session_id),
    seq             INTEGER NOT NULL,
    speaker         TEXT NOT NULL,
    listener        TEXT,
    text            TEXT NOT NULL,
    anchor_datetime TEXT NOT NULL,
    recorded_at     TEXT NOT NULL
);
CREATE INDEX turns_session_seq ON turns (session_id, seq);

CREATE TABLE entities (
    entity_id    TEXT PRIMARY KEY,
    name         TEXT NOT NULL,
    norm_name    TEXT NOT NULL,
    entity_type  TEXT NOT NULL,
    role         TEXT NOT NULL,
    aliases_json TEXT NOT NULL,
    description  TEXT NOT NULL,
    recorded_at  TEXT NOT NULL
);
CREATE INDEX entities_norm_name ON entities (norm_name, entity_type);

CREATE TABLE properties (
    property_id      TEXT PRIMARY KEY,
    name             TEXT NOT NULL UNIQUE,
    dtype            TEXT NOT NULL,
    enum_values_json TEXT NOT NULL,
    description      TEXT NOT NULL,
    recorded_at      TEXT NOT NULL
);

CREATE TABLE evidence (
    evidence_id TEXT PRIMARY KEY,
    turn_id     TEXT REFERENCES turns (turn_id),
    text        TEXT NOT NULL,
    span_start  INTEGER,
    span_end    INTEGER,
    recorded_at TEXT NOT NULL
);
CREATE INDEX evidence_turn ON evidence (turn_id);

CREATE TABLE events (
    event_id        TEXT PRIMARY KEY,
    event_type      TEXT NOT NULL,
    anchor_datetime TEXT NOT NULL,
    location        TEXT,
    turn_id         TEXT REFERENCES turns (turn_id),
    evidence_id     TEXT REFERENCES evidence (evidence_id),
    recorded_at     TEXT NOT NULL
);
CREATE INDEX events_anchor ON events (anchor_datetime);
CREATE INDEX events_turn ON events (turn_id);

CREATE TABLE event_participants (
    event_id    TEXT NOT NULL REFERENCES events (event_id),
    entity_id   TEXT NOT NULL REFERENCES entities (entity_id),
    role        TEXT NOT NULL,
    recorded_at TEXT NOT NULL,
    PRIMARY KEY (event_id, entity_id, role)
) WITHOUT ROWID;
CREATE INDEX event_participants_entity ON event_participants (entity_id);

CREATE TABLE facts (
    fact_id     TEXT PRIMARY KEY,
    entity_id   TEXT NOT NULL REFERENCES entities (entity_id),
    property_id TEXT NOT NULL REFERENCES properties (property_id),
    property    TEXT NOT NULL,
    value_json  TEXT NOT NULL,
    dtype       TEXT NOT NULL,
    t_from      TEXT NOT NULL,
    t_to        TEXT,
    confidence  REAL NOT NULL CHECK (confidence BETWEEN 0.0 AND 1.0),
    event_id    TEXT REFERENCES events (event_id),
    evidence_id TEXT REFERENCES evidence (evidence_id),
    recorded_at TEXT NOT NULL,
    CHECK (t_to IS NULL OR t_from <= t_to)
);
-- Serves current / as_of / history / changes / before / known_as_of (ordered by k).
CREATE INDEX facts_timeline ON facts (entity_id, property, t_from, recorded_at, fact_id);
CREATE INDEX facts_event ON facts (event_id);

-- Append-only: facts are never updated or deleted.
CREATE TRIGGER facts_no_update BEFORE UPDATE ON facts
BEGIN
    SELECT RAISE(ABORT, 'facts are append-only: UPDATE is not allowed');
END;
CREATE TRIGGER facts_no_delete BEFORE DELETE ON facts
BEGIN
    SELECT RAISE(ABORT, 'facts are append-only: DELETE is not allowed');
END;
