// The stored documents (as JSON) for a list of doc ids.
MATCH (n:{{label}}) WHERE n.doc_id IN $doc_ids
RETURN n.doc_id AS doc_id, n.doc_json AS doc_json
