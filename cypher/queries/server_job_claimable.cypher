// The jobs of $namespace that no live server holds, oldest first: queued with no owner, held
// for $owner, or held under a lease that ran out (its server stopped or died); with $extract
// false, only jobs without extraction (a server without a language model). A read only:
// server_job_claim takes one up.
MATCH (j:ApexIngestJob)
WHERE j.namespace = $namespace AND j.state IN ['queued', 'running']
  AND (j.lease_until IS NULL OR j.lease_until < timestamp()
       OR (j.state = 'queued' AND j.owner = $owner))
  AND ($extract OR NOT j.extract)
RETURN j.job_id AS job_id
ORDER BY j.created_at, j.job_id
LIMIT $limit
