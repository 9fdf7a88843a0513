// known_as_of(e, p, r, at): as_of(e, p, $t) over facts of (e, p) recorded by $recorded_at.
MATCH (f:Fact)
USING INDEX SEEK f:Fact(entity_id, property, t_from)
WHERE f.entity_id = $entity_id AND f.property = $property AND f.t_from <= $t
  AND (f.t_to IS NULL OR f.t_to >= $t)
  AND f.recorded_at <= $recorded_at
RETURN f.fact_id AS fact_id, f.entity_id AS entity_id, f.property AS property,
       f.value_json AS value_json, f.dtype AS dtype, f.t_from AS t_from, f.t_to AS t_to,
       f.confidence AS confidence, f.event_id AS event_id, f.evidence_id AS evidence_id,
       f.recorded_at AS recorded_at
ORDER BY t_from DESC, recorded_at DESC, fact_id DESC
LIMIT 1
