// Store an API key: its id, scopes and the SHA-256 of the whole key, never the key itself.
// $made_ns orders the listing as the keys were made.
CREATE (k:ApexServerKey)
SET k = $key, k.made_ns = $made_ns
