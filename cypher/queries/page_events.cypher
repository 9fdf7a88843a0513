// GraphStore.page: one page of a scope's events, in (event_id) order. $after: the cursor's
// key ([] on the first page); $from: its event_id (the range the index seeks); $limit: one
// row more than the page holds.
MATCH (ev:Event)
USING INDEX SEEK ev:Event(event_id)
WHERE ev.event_id >= $from AND [ev.event_id] > $after AND ev.scope = $scope
WITH ev ORDER BY ev.event_id LIMIT $limit
RETURN ev.event_id AS event_id, ev.event_type AS event_type,
       ev.anchor_datetime AS anchor_datetime, ev.location AS location,
       ev.turn_id AS turn_id, ev.evidence_id AS evidence_id, ev.recorded_at AS recorded_at,
       ev.scope AS scope
