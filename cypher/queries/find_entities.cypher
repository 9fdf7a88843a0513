// Exact match on the normalised name, optionally of one entity_type, ordered by entity_id.
MATCH (e:Entity)
WHERE e.norm_name = $norm_name AND e.scope = $scope AND ($entity_type IS NULL OR e.entity_type = $entity_type)
RETURN e.entity_id AS entity_id, e.name AS name, e.norm_name AS norm_name,
       e.entity_type AS entity_type, e.role AS role, e.aliases_json AS aliases_json,
       e.description AS description, e.recorded_at AS recorded_at,
       e.scope AS scope
ORDER BY entity_id
