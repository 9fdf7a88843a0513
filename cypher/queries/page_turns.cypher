// GraphStore.page: one page of a scope's turns, in (session_id, seq, turn_id) order.
// $after: the cursor's key ([] on the first page); $from: its session_id (the range the
// index seeks); $limit: one row more than the page holds; $metadata: per
// wanted entry, the texts of which metadata_json must contain one ([] for any turn).
MATCH (t:Turn)
USING INDEX SEEK t:Turn(session_id, seq)
WHERE t.session_id >= $from AND t.seq IS NOT NULL
  AND [t.session_id, t.seq, t.turn_id] > $after AND t.scope = $scope
  AND all(needles IN $metadata WHERE any(n IN needles WHERE t.metadata_json CONTAINS n))
WITH t ORDER BY t.session_id, t.seq, t.turn_id LIMIT $limit
RETURN t.turn_id AS turn_id, t.session_id AS session_id, t.seq AS seq,
       t.speaker AS speaker, t.listener AS listener, t.text AS text,
       t.anchor_datetime AS anchor_datetime, t.recorded_at AS recorded_at,
       coalesce(t.metadata_json, '{}') AS metadata_json, t.scope AS scope
