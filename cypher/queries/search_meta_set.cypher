// Record the embedder of a search namespace on its one meta node (made on first write).
MERGE (m:{{meta_label}})
SET m.embedder = $embedder, m.dimensions = $dimensions
