// The embedder a search namespace recorded when it was created: model name and dimensions.
MATCH (m:{{meta_label}})
RETURN m.embedder AS embedder, m.dimensions AS dimensions
LIMIT 1
