// Erasure of a whole scope ($label: its scope label): the ids of every node it holds.
CALL () { MATCH (n:Session:$($label)) RETURN collect(n.session_id) AS session }
CALL () { MATCH (n:Turn:$($label)) RETURN collect(n.turn_id) AS turn }
CALL () { MATCH (n:Evidence:$($label)) RETURN collect(n.evidence_id) AS evidence }
CALL () { MATCH (n:Event:$($label)) RETURN collect(n.event_id) AS event }
CALL () { MATCH (n:Fact:$($label)) RETURN collect(n.fact_id) AS fact }
CALL () { MATCH (n:Entity:$($label)) RETURN collect(n.entity_id) AS entity }
CALL () { MATCH (n:Property:$($label)) RETURN collect(n.property_id) AS property }
RETURN session, turn, evidence, event, fact, entity, property, [] AS touched
