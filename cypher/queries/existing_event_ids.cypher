// The subset of $ids that are stored as :Event (dangling-reference check before a write).
UNWIND $ids AS id
MATCH (n:Event {event_id: id}) WHERE n.scope = $scope
RETURN n.event_id AS id
