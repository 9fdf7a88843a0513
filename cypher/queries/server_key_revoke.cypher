// Revoke an API key; a revoked key keeps its first revocation time.
MATCH (k:ApexServerKey {key_id: $key_id})
SET k.revoked_at = coalesce(k.revoked_at, $at)
RETURN k {.*} AS key
