// The subset of $ids that are stored as :Session (dangling-reference check before a write).
UNWIND $ids AS id
MATCH (n:Session {session_id: id}) WHERE n.scope = $scope
RETURN n.session_id AS id
