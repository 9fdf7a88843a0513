// entities rows not yet stored -> (:Entity). The store passes only rows whose entity_id
// existing_entity_ids did not find, each once, so CREATE replaces MERGE (a bulk batch names
// ~1k entities, nearly all stored already: a plain index read each instead of MERGE's
// locking one); a concurrent writer creating the same entity trips the entity_id constraint
// and the store re-runs the batch with write_entities (MERGE).
UNWIND $rows AS row
CREATE (e:Entity:$($label))
SET e = row
