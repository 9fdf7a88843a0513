// Indexes of earlier versions that init_schema drops (IF EXISTS: a store without them is
// left as it is).
// session_scope (Session by scope): write_turns, existing_session_ids and erase_delete
// sought it and filtered every session of the scope by id, per row, instead of the
// session_id unique index.
DROP INDEX session_scope IF EXISTS;
