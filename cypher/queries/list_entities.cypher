// Every entity of one scope, ordered by entity_id: the names a read resolves a mention against.
MATCH (e:Entity)
WHERE e.scope = $scope
RETURN e.entity_id AS entity_id, e.name AS name, e.norm_name AS norm_name,
       e.entity_type AS entity_type, e.role AS role, e.aliases_json AS aliases_json,
       e.description AS description, e.recorded_at AS recorded_at,
       e.scope AS scope
ORDER BY entity_id
