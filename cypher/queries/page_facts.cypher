// GraphStore.page: one page of a scope's facts, in (entity_id, property, t_from,
// recorded_at, fact_id) order. $after: the cursor's key ([] on the first page); $from: its
// entity_id (the range the index seeks); $limit: one row more than the page holds.
// $property: only facts of that property (null: every property).
MATCH (f:Fact)
USING INDEX SEEK f:Fact(entity_id, property, t_from)
WHERE f.entity_id >= $from AND f.property IS NOT NULL AND f.t_from IS NOT NULL
  AND [f.entity_id, f.property, f.t_from, f.recorded_at, f.fact_id]
    > $after
  AND f.scope = $scope AND ($property IS NULL OR f.property = $property)
WITH f ORDER BY f.entity_id, f.property, f.t_from, f.recorded_at, f.fact_id LIMIT $limit
RETURN f.fact_id AS fact_id, f.entity_id AS entity_id, f.property_id AS property_id,
       f.property AS property, f.value_json AS value_json, f.dtype AS dtype,
       f.t_from AS t_from, f.t_to AS t_to, f.confidence AS confidence,
       f.event_id AS event_id, f.evidence_id AS evidence_id, f.recorded_at AS recorded_at,
       f.scope AS scope
