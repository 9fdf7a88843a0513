// PARTICIPANT relationships written before scopes join the scope 'default'. One batch per run.
MATCH ()-[r:PARTICIPANT]->()
WHERE r.scope IS NULL
WITH r LIMIT $limit
SET r.scope = 'default'
RETURN count(r) AS changed
