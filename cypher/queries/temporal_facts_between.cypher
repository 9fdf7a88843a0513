// facts_between(e, t1, t2): facts of e (any property) that began in the window,
// $t1 <= t_from <= $t2 (both ends inclusive). Index seek on fact_entity_time (entity_id, t_from).
MATCH (f:Fact)
USING INDEX SEEK f:Fact(entity_id, t_from)
WHERE f.entity_id = $entity_id AND $t1 <= f.t_from <= $t2
RETURN f.fact_id AS fact_id, f.entity_id AS entity_id, f.property AS property,
       f.value_json AS value_json, f.dtype AS dtype, f.t_from AS t_from, f.t_to AS t_to,
       f.confidence AS confidence, f.event_id AS event_id, f.evidence_id AS evidence_id,
       f.recorded_at AS recorded_at
ORDER BY t_from, property, recorded_at, fact_id
