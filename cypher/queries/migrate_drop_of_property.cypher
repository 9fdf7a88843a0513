// Stores written before 2026-12-03 hold (Fact)-[:OF_PROPERTY]->(Property): an edge derived
// from facts.property_id, with nothing of its own (the fact keeps property_id and property).
// Up to $limit of them go per call; the relationship type index finds them, so a store
// without any answers 0 at once. Facts are untouched (append-only holds for facts).
MATCH ()-[r:OF_PROPERTY]->()
WITH r LIMIT $limit
DELETE r
RETURN count(*) AS changed
