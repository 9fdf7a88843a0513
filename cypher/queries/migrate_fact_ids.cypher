// Up to $limit Fact nodes written with fact_/prop_ ids get the fct_/prp_ ids of today
// (ontology/ids.py says why; the SQLite twin is migrations/0004_short_ids.sql). The hex is
// kept, so the new id is the one the code computes now; right(id, 32) makes a repeat harmless.
// Seeks the fact_id constraint's index, so a migrated store answers with 0 at once.
MATCH (f:Fact)
WHERE f.fact_id STARTS WITH 'fact_' AND size(f.fact_id) = 37
WITH f LIMIT $limit
SET f.fact_id = 'fct_' + right(f.fact_id, 32),
    f.property_id = CASE
      WHEN f.property_id STARTS WITH 'prop_' AND size(f.property_id) = 37
      THEN 'prp_' + right(f.property_id, 32)
      ELSE f.property_id
    END
RETURN count(f) AS changed
