// Forget the embedder record of a search namespace (dropping the namespace).
MATCH (m:{{meta_label}})
DELETE m
