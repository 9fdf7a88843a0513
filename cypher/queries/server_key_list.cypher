// Every API key, revoked ones included, in the order they were made.
MATCH (k:ApexServerKey)
RETURN k {.*} AS key
ORDER BY k.made_ns, k.key_id
