// Rows per table: node counts per label (count store), relationships for event_participants.
CALL () { MATCH (n:Session) RETURN count(n) AS sessions }
CALL () { MATCH (n:Turn) RETURN count(n) AS turns }
CALL () { MATCH (n:Entity) RETURN count(n) AS entities }
CALL () { MATCH (n:Property) RETURN count(n) AS properties }
CALL () { MATCH (n:Evidence) RETURN count(n) AS evidence }
CALL () { MATCH (n:Event) RETURN count(n) AS events }
CALL () { MATCH ()-[r:PARTICIPANT]->() RETURN count(r) AS event_participants }
CALL () { MATCH (n:Fact) RETURN count(n) AS facts }
RETURN sessions, turns, entities, properties, evidence, events, event_participants, facts
