MATCH (ev:Event {event_id: $event_id})
RETURN ev.event_id AS event_id, ev.event_type AS event_type,
       ev.anchor_datetime AS anchor_datetime, ev.location AS location,
       ev.turn_id AS turn_id, ev.evidence_id AS evidence_id, ev.recorded_at AS recorded_at,
       ev.scope AS scope
