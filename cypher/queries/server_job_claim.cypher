// Take up job $job_id for $owner if no live server holds it (and, with $extract false, if it
// needs no extraction). SET j.claiming takes the node's write lock before its state and owner
// are read, so of two servers claiming it at once the second waits for the first to commit,
// reads what it wrote and gets no row.
MATCH (j:ApexIngestJob {job_id: $job_id})
SET j.claiming = true
REMOVE j.claiming
WITH j
WHERE j.state IN ['queued', 'running']
  AND (j.lease_until IS NULL OR j.lease_until < timestamp()
       OR (j.state = 'queued' AND j.owner = $owner))
  AND ($extract OR NOT j.extract)
SET j.state = 'running', j.owner = $owner, j.lease_until = timestamp() + $lease_ms,
    j.attempts = coalesce(j.attempts, 0) + 1
RETURN j {.*} AS job
