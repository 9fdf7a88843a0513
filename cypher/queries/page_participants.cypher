// GraphStore.page: one page of a scope's event participants (PARTICIPANT relationships), in
// (event_id, entity_id, role) order. $after: the cursor's key ([] on the first page);
// $from: its event_id (the range the index seeks); $limit: one row more than the page
// holds.
MATCH ()-[r:PARTICIPANT]->()
USING INDEX SEEK r:PARTICIPANT(event_id, entity_id, role)
WHERE r.event_id >= $from AND r.entity_id IS NOT NULL AND r.role IS NOT NULL
  AND [r.event_id, r.entity_id, r.role] > $after AND r.scope = $scope
WITH r ORDER BY r.event_id, r.entity_id, r.role LIMIT $limit
RETURN r.event_id AS event_id, r.entity_id AS entity_id, r.role AS role,
       r.recorded_at AS recorded_at, r.scope AS scope
