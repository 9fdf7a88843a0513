// Approximate kNN (HNSW, cosine) over the vector indexes of the admitted kinds (one per kind,
// so no kind filter follows the walk). The walk cannot filter: documents of other scopes are
// dropped after it. Per index: how many nodes the walk found ($candidates when it may have
// stopped short of the scope's documents) and the hits of the scope (all when $scope is null).
UNWIND $indexes AS index
CALL (index) {
  CALL db.index.vector.queryNodes(index, $candidates, $vector) YIELD node, score
  RETURN count(node) AS found,
         collect(CASE WHEN $scope IS NULL OR node.scope = $scope
                      THEN {doc_id: node.doc_id, score: score} END) AS hits
}
RETURN found, hits
