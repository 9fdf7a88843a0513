// sessions rows -> (:Session); $rows: [{session_id, conversation_id, seq, started_at, recorded_at}]
UNWIND $rows AS row
MERGE (s:Session {session_id: row.session_id})
ON CREATE SET s += row, s:$($label)
