// Nodes written before scopes join the scope 'default' ($label is its scope label): the
// default scope's ids hash no scope, so such a store keeps its ids. One batch per run.
MATCH (n)
WHERE n.scope IS NULL
  AND (n:Session OR n:Turn OR n:Entity OR n:Property OR n:Evidence OR n:Event OR n:Fact)
WITH n LIMIT $limit
SET n.scope = 'default', n:$($label)
RETURN count(n) AS changed
