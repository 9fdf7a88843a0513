// GraphStore.page: the session $session_id of a scope (a page of at most one); $after: the
// cursor's key ([] on the first page).
MATCH (s:Session {session_id: $session_id})
WHERE s.scope = $scope AND [s.session_id] > $after
WITH s LIMIT $limit
RETURN s.session_id AS session_id, s.conversation_id AS conversation_id, s.seq AS seq,
       s.started_at AS started_at, s.recorded_at AS recorded_at, s.scope AS scope
