// The subset of $ids stored as :Event (so that write_events CREATEs only new events).
UNWIND $ids AS id
MATCH (n:Event {event_id: id})
RETURN n.event_id AS id
