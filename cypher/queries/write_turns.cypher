// turns rows -> (:Turn)-[:IN_SESSION]->(:Session)
UNWIND $rows AS row
MERGE (t:Turn {turn_id: row.turn_id})
ON CREATE SET t += row, t:$($label)
WITH t, row
MATCH (s:Session {session_id: row.session_id}) WHERE s.scope = row.scope
MERGE (t)-[:IN_SESSION]->(s)
