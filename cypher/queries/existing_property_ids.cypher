// The subset of $ids stored as :Property (so that write_properties_new CREATEs only new ones).
UNWIND $ids AS id
MATCH (n:Property {property_id: id}) WHERE n.scope = $scope
RETURN n.property_id AS id
