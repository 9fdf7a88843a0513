// history(e, p): every fact of (e, p) in k order; changes(e, p) is computed from it.
MATCH (f:Fact)
USING INDEX SEEK f:Fact(entity_id, property, t_from)
WHERE f.entity_id = $entity_id AND f.property = $property AND f.t_from IS NOT NULL
RETURN f.fact_id AS fact_id, f.entity_id AS entity_id, f.property AS property,
       f.value_json AS value_json, f.dtype AS dtype, f.t_from AS t_from, f.t_to AS t_to,
       f.confidence AS confidence, f.event_id AS event_id, f.evidence_id AS evidence_id,
       f.recorded_at AS recorded_at
ORDER BY t_from, recorded_at, fact_id
