// The subset of $ids that are stored as :Entity (dangling-reference check before a write).
UNWIND $ids AS id
MATCH (n:Entity {entity_id: id}) WHERE n.scope = $scope
RETURN n.entity_id AS id
