// Exact cosine over the documents the filters admit: used when filters other than kind and
// scope are set, and when the ANN walk found too few documents of the scope.
// $properties maps each kind to the property holding its vector, e.g. turn -> turn_text_vector.
// A scope is read through the scope index (first branch); only a search without a scope
// (second branch, null $scope) scans the whole label.
CALL () {
  MATCH (n:{{label}}) WHERE n.scope = $scope RETURN n
  UNION ALL
  WITH $scope AS scope WHERE scope IS NULL
  MATCH (n:{{label}}) RETURN n
}
WITH n
WHERE n.kind IN $kinds
  AND ($conversations IS NULL OR n.conversation_id IN $conversations)
  AND ($sessions IS NULL OR n.session_id IN $sessions)
  AND ($speakers IS NULL OR n.speaker IN $speakers)
  AND ($time_from IS NULL OR n.time >= $time_from)
  AND ($time_to IS NULL OR n.time <= $time_to)
WITH n, vector.similarity.cosine(n[$properties[n.kind]], $vector) AS score
RETURN n.doc_id AS doc_id, score
ORDER BY score DESC, doc_id
LIMIT $k
