// events rows not yet stored -> (:Event) nodes (relationships: write_events_links).
// The store passes only rows whose event_id write_events_existing did not find, each once,
// so CREATE replaces MERGE; a concurrent writer creating the same event trips the event_id
// constraint and the store re-runs the batch with write_events_merge.
UNWIND $rows AS row
CREATE (ev:Event)
SET ev = row
