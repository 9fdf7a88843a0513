// Up to $limit Property nodes written with prop_ ids get today's prp_ id (same hex); see
// migrate_fact_ids.cypher.
MATCH (p:Property)
WHERE p.property_id STARTS WITH 'prop_' AND size(p.property_id) = 37
WITH p LIMIT $limit
SET p.property_id = 'prp_' + right(p.property_id, 32)
RETURN count(p) AS changed
