// GraphStore.page: one page of a scope's evidence, in (evidence_id) order. $after: the
// cursor's key ([] on the first page); $from: its evidence_id (the range the index seeks);
// $limit: one row more than the page holds.
MATCH (v:Evidence)
USING INDEX SEEK v:Evidence(evidence_id)
WHERE v.evidence_id >= $from AND [v.evidence_id] > $after AND v.scope = $scope
WITH v ORDER BY v.evidence_id LIMIT $limit
RETURN v.evidence_id AS evidence_id, v.turn_id AS turn_id, v.text AS text,
       v.span_start AS span_start, v.span_end AS span_end, v.recorded_at AS recorded_at,
       v.scope AS scope
