// GraphStore.page: one page of a scope's entities, in (norm_name, entity_type, entity_id)
// order. $after: the cursor's key ([] on the first page); $from: its norm_name (the range
// the index seeks); $limit: one row more than the page holds.
MATCH (e:Entity)
USING INDEX SEEK e:Entity(norm_name)
WHERE e.norm_name >= $from AND [e.norm_name, e.entity_type, e.entity_id] > $after
  AND e.scope = $scope
WITH e ORDER BY e.norm_name, e.entity_type, e.entity_id LIMIT $limit
RETURN e.entity_id AS entity_id, e.name AS name, e.norm_name AS norm_name,
       e.entity_type AS entity_type, e.role AS role, e.aliases_json AS aliases_json,
       e.description AS description, e.recorded_at AS recorded_at, e.scope AS scope
