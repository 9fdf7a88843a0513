// Exact cosine over the documents the filters admit (used when filters other than kind are set).
// A document's vector property is <kind><$vector_suffix>, e.g. turn_text_vector.
MATCH (n:{{label}})
WHERE n.kind IN $kinds
  AND ($conversations IS NULL OR n.conversation_id IN $conversations)
  AND ($sessions IS NULL OR n.session_id IN $sessions)
  AND ($speakers IS NULL OR n.speaker IN $speakers)
  AND ($time_from IS NULL OR n.time >= $time_from)
  AND ($time_to IS NULL OR n.time <= $time_to)
WITH n, vector.similarity.cosine(n[n.kind + $vector_suffix], $vector) AS score
RETURN n.doc_id AS doc_id, score
ORDER BY score DESC, doc_id
LIMIT $k
