-- Turn numbering per session: reserve_turn_seqs reads and moves next_seq in one write
-- transaction, so two writers of one session never give two turns the same seq.
CREATE TABLE IF NOT EXISTS turn_seqs (
    session_id TEXT PRIMARY KEY,
    next_seq INTEGER NOT NULL CHECK (next_seq >= 0)
) WITHOUT ROWID;
