// The vector size of one vector index: what a namespace created before embedder records
// tells about its embedder.
SHOW INDEXES YIELD name, options
WHERE name = $name
RETURN options.indexConfig['vector.dimensions'] AS dimensions
