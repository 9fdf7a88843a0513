// The subset of $ids that are stored as :Evidence (dangling-reference check before a write).
UNWIND $ids AS id
MATCH (n:Evidence {evidence_id: id}) WHERE n.scope = $scope
RETURN n.evidence_id AS id
