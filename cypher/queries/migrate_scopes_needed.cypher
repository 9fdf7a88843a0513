// Whether the store predates scopes: a session or entity without one (new stores have none).
OPTIONAL MATCH (s:Session) WHERE s.scope IS NULL
WITH s LIMIT 1
OPTIONAL MATCH (e:Entity) WHERE e.scope IS NULL
WITH s, e LIMIT 1
RETURN s IS NOT NULL OR e IS NOT NULL AS needed
