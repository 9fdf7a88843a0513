// properties rows -> (:Property)
UNWIND $rows AS row
MERGE (p:Property {property_id: row.property_id})
ON CREATE SET p += row, p:$($label)
