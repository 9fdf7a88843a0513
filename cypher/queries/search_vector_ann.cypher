// Approximate kNN (HNSW, cosine) over the vector indexes of the admitted kinds (one per kind,
// so no filter follows the walk); the best $k of their union.
UNWIND $indexes AS index
CALL db.index.vector.queryNodes(index, $candidates, $vector) YIELD node, score
RETURN node.doc_id AS doc_id, score
ORDER BY score DESC, doc_id
LIMIT $k
