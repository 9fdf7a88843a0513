// properties rows not yet stored -> (:Property); as write_entities_new, with write_properties
// (MERGE) as the fallback when a concurrent writer created one first.
UNWIND $rows AS row
CREATE (p:Property:$($label))
SET p = row
