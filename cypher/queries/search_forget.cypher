// Delete up to $limit search documents of a scope (those of the doc ids $doc_ids, or all when
// it is null) with their INDEXES links; returns each one's stored JSON, read before the delete.
// The caller repeats it until fewer than $limit come back, so no transaction grows unbounded.
// Ids are read through the doc_id constraint (first branch); a whole scope through the scope
// index (second branch, null $doc_ids).
CALL () {
  MATCH (n:{{label}}) WHERE n.doc_id IN $doc_ids RETURN n
  UNION ALL
  WITH $doc_ids AS ids WHERE ids IS NULL
  MATCH (n:{{label}}) WHERE n.scope = $scope RETURN n
}
WITH n WHERE n.scope = $scope
WITH n LIMIT $limit
WITH n, n.doc_json AS doc_json
DETACH DELETE n
RETURN doc_json
