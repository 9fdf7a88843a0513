// entities rows -> (:Entity)
UNWIND $rows AS row
MERGE (e:Entity {entity_id: row.entity_id})
ON CREATE SET e += row, e:$($label)
