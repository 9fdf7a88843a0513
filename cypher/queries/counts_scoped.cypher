// The counts of one scope ($label: its scope label), for SchemaViewer in that scope. Node
// counts per label pair, relationships from the scope's events for event_participants.
CALL () { MATCH (n:Session:$($label)) RETURN count(n) AS sessions }
CALL () { MATCH (n:Turn:$($label)) RETURN count(n) AS turns }
CALL () { MATCH (n:Entity:$($label)) RETURN count(n) AS entities }
CALL () { MATCH (n:Property:$($label)) RETURN count(n) AS properties }
CALL () { MATCH (n:Evidence:$($label)) RETURN count(n) AS evidence }
CALL () { MATCH (n:Event:$($label)) RETURN count(n) AS events }
CALL () { MATCH (:Event:$($label))-[r:PARTICIPANT]->() RETURN count(r) AS event_participants }
CALL () { MATCH (n:Fact:$($label)) RETURN count(n) AS facts }
RETURN sessions, turns, entities, properties, evidence, events, event_participants, facts
