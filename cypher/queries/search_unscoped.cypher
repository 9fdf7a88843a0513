// One search document written before scopes (no scope property), if the namespace has any.
MATCH (n:{{label}}) WHERE n.scope IS NULL
RETURN n.doc_id AS doc_id
LIMIT 1
