// GraphStore.page: one page of a scope's sessions, in (session_id) order. $after: the
// cursor's key ([] on the first page); $from: its session_id (the range the index seeks);
// $limit: one row more than the page holds.
MATCH (s:Session)
USING INDEX SEEK s:Session(session_id)
WHERE s.session_id >= $from AND [s.session_id] > $after AND s.scope = $scope
WITH s ORDER BY s.session_id LIMIT $limit
RETURN s.session_id AS session_id, s.conversation_id AS conversation_id, s.seq AS seq,
       s.started_at AS started_at, s.recorded_at AS recorded_at, s.scope AS scope
