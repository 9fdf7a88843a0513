// Delete a namespace's search documents in batches (the graph nodes they link to stay).
MATCH (n:{{label}})
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS
