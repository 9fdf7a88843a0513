-- 0004: fact and property ids take 3-letter prefixes (fct_, prp_; ontology/ids.py says why).
-- The 32 hex digits stay, so a rewritten id equals the one the new code computes and
-- re-ingesting an old turn adds nothing. Rewriting an id is the one UPDATE facts ever see:
-- the append-only trigger is dropped for it and re-created, all inside this migration's
-- transaction. substr(id, -32) keeps the hex whatever the prefix, so it cannot go wrong twice.
PRAGMA defer_foreign_keys = ON;
DROP TRIGGER facts_no_update;
UPDATE facts SET fact_id = 'fct_' || substr(fact_id, -32)
WHERE fact_id LIKE 'fact\_%' ESCAPE '\' AND length(fact_id) = 37;
UPDATE facts SET property_id = 'prp_' || substr(property_id, -32)
WHERE property_id LIKE 'prop\_%' ESCAPE '\' AND length(property_id) = 37;
UPDATE properties SET property_id = 'prp_' || substr(property_id, -32)
WHERE property_id LIKE 'prop\_%' ESCAPE '\' AND length(property_id) = 37;
CREATE TRIGGER facts_no_update BEFORE UPDATE ON facts
BEGIN
    SELECT RAISE(ABORT, 'facts are append-only: UPDATE is not allowed');
END;
