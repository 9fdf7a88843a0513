// current(e, p): the greatest fact of (e, p) by k = (t_from, recorded_at, fact_id).
// Index seek on fact_timeline (entity_id, property, t_from), pinned by the hint so that
// stale index statistics can never make the planner scan instead (USING INDEX alone still
// allowed a full NodeIndexScan of it: seen at 10k facts right after a bulk load).
MATCH (f:Fact)
USING INDEX SEEK f:Fact(entity_id, property, t_from)
WHERE f.entity_id = $entity_id AND f.property = $property AND f.t_from IS NOT NULL
RETURN f.fact_id AS fact_id, f.entity_id AS entity_id, f.property AS property,
       f.value_json AS value_json, f.dtype AS dtype, f.t_from AS t_from, f.t_to AS t_to,
       f.confidence AS confidence, f.event_id AS event_id, f.evidence_id AS evidence_id,
       f.recorded_at AS recorded_at
ORDER BY t_from DESC, recorded_at DESC, fact_id DESC
LIMIT 1
