// Queue an ingest job with its work; with an owner in $job, held for that server for
// $lease_ms (the lease is null without one, so any server may take the job up).
CREATE (j:ApexIngestJob)
SET j = $job, j.lease_until = timestamp() + $lease_ms
