// GraphStore.page: one page of a scope's properties, in (name) order. $after: the cursor's
// key ([] on the first page); $from: its name (the range the index seeks); $limit: one row
// more than the page holds.
MATCH (p:Property)
USING INDEX SEEK p:Property(name)
WHERE p.name >= $from AND [p.name] > $after AND p.scope = $scope
WITH p ORDER BY p.name LIMIT $limit
RETURN p.property_id AS property_id, p.name AS name, p.dtype AS dtype,
       p.enum_values_json AS enum_values_json, p.description AS description,
       p.recorded_at AS recorded_at, p.scope AS scope
