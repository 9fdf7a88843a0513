// One API key by id.
MATCH (k:ApexServerKey {key_id: $key_id})
RETURN k {.*} AS key
