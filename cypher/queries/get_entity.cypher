MATCH (e:Entity {entity_id: $entity_id})
RETURN e.entity_id AS entity_id, e.name AS name, e.norm_name AS norm_name,
       e.entity_type AS entity_type, e.role AS role, e.aliases_json AS aliases_json,
       e.description AS description, e.recorded_at AS recorded_at,
       e.scope AS scope
