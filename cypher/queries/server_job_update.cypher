// Change a job that $owner still holds (running, its owner): its progress, its end, or only
// its lease, set to $lease_ms from now (null: none). A null in $values removes that field.
// The write lock is taken before the owner is read, as in server_job_claim.
MATCH (j:ApexIngestJob {job_id: $job_id})
SET j.updating = true
REMOVE j.updating
WITH j
WHERE j.owner = $owner AND j.state = 'running'
SET j += $values, j.lease_until = timestamp() + $lease_ms
RETURN count(j) AS held
