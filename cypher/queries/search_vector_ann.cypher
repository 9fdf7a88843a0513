// Approximate kNN (HNSW, cosine) over one vector index, then the kind filter.
CALL db.index.vector.queryNodes($index, $candidates, $vector) YIELD node, score
WHERE node.kind IN $kinds
RETURN node.doc_id AS doc_id, score
ORDER BY score DESC, doc_id
LIMIT $k
