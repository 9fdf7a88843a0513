// The audit record of an erasure: ids and counts, no content, and no scope label, so no
// GraphQuery ever sees it.
CREATE (:Erasure {
  erasure_id: $record.erasure_id, scope: $record.scope, kind: $record.kind,
  targets: $record.targets, counts_json: $record.counts_json, erased_at: $record.erased_at
})
