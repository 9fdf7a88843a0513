-- Turn metadata: the caller's own keys and JSON scalars, as canonical JSON. Turns written
-- before it have none ('{}'). Listings filter on it with json_each, so it needs no index.
ALTER TABLE turns ADD COLUMN metadata_json TEXT NOT NULL DEFAULT '{}';
