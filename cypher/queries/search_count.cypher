// How many search documents the namespace holds.
MATCH (n:{{label}}) RETURN count(n) AS count
