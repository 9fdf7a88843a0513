// The subset of $ids that are stored as :Turn (dangling-reference check before a write).
UNWIND $ids AS id
MATCH (n:Turn {turn_id: id}) WHERE n.scope = $scope
RETURN n.turn_id AS id
