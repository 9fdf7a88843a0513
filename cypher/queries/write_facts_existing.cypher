// The subset of $ids stored as :Fact (so that write_facts CREATEs only new facts).
UNWIND $ids AS id
MATCH (n:Fact {fact_id: id})
RETURN n.fact_id AS id
