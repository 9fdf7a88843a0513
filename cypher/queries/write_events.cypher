// events rows not yet stored -> (:Event) nodes (relationships: write_events_links).
// The store passes each row once and does not look for stored ids first (event ids hash
// their turn and content: stored ones come back only when a batch is written again), so
// CREATE replaces MERGE; a stored event_id, or a concurrent writer creating the same event,
// trips the event_id constraint and the store re-runs the batch with write_events_merge.
UNWIND $rows AS row
CREATE (ev:Event:$($label))
SET ev = row
