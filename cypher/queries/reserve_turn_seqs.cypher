// Reserve $count turn numbers of session $session_id; returns the first, one past both the
// session's counter and its last stored turn. SET c.locked takes the counter's write lock
// before anything is read, so a concurrent reservation waits for this one to commit and then
// reads what it wrote (no lost update); MERGE on the unique session_id makes one counter.
// TurnSeq carries no scope label: GraphQuery never sees it.
MERGE (c:TurnSeq {session_id: $session_id})
SET c.locked = true
WITH c
OPTIONAL MATCH (t:Turn {session_id: $session_id})
WITH c, coalesce(max(t.seq) + 1, 0) AS after_turns
WITH c, CASE WHEN coalesce(c.next_seq, 0) > after_turns THEN coalesce(c.next_seq, 0)
  ELSE after_turns END AS first
SET c.next_seq = first + $count
REMOVE c.locked
RETURN first
