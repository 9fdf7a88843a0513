// BM25 over one full-text index; filters are parameters (null = no restriction). The scope is
// checked on the stream of matches, before LIMIT, so $k hits of the scope come back.
CALL db.index.fulltext.queryNodes($index, $query) YIELD node, score
WHERE ($scope IS NULL OR node.scope = $scope)
  AND node.kind IN $kinds
  AND ($conversations IS NULL OR node.conversation_id IN $conversations)
  AND ($sessions IS NULL OR node.session_id IN $sessions)
  AND ($speakers IS NULL OR node.speaker IN $speakers)
  AND ($time_from IS NULL OR node.time >= $time_from)
  AND ($time_to IS NULL OR node.time <= $time_to)
RETURN node.doc_id AS doc_id, score
ORDER BY score DESC, doc_id
LIMIT $k
