// One ingest job by id, without its work (the messages it still has to store).
MATCH (j:ApexIngestJob {job_id: $job_id})
RETURN j {.*, work: null} AS job
