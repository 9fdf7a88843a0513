// Every relationship type the database has ever held (types stay known after their last
// relationship is deleted).
CALL db.relationshipTypes() YIELD relationshipType
RETURN relationshipType
