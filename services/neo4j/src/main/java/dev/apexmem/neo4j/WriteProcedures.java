package dev.apexmem.neo4j;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;
import org.neo4j.graphdb.ConstraintViolationException;
import org.neo4j.graphdb.Direction;
import org.neo4j.graphdb.Entity;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.RelationshipType;
import org.neo4j.graphdb.Transaction;
import org.neo4j.kernel.api.exceptions.Status;
import org.neo4j.procedure.Context;
import org.neo4j.procedure.Description;
import org.neo4j.procedure.Mode;
import org.neo4j.procedure.Name;
import org.neo4j.procedure.Procedure;

/**
 * The store's bulk write path through the core API: the same graph the Cypher write files
 * build, without Cypher's per-row interpretation.
 *
 * <p>Both procedures run in the caller's transaction (a batch still commits whole or not at
 * all) and are append-only: a node or relationship whose key is already stored is left as it
 * is (the first write wins, as with MERGE ... ON CREATE SET). Nodes are found through the
 * uniqueness constraints of cypher/schema/store_constraints.cypher. Should a concurrent
 * transaction create the same key first, the constraint fails at commit and the caller
 * re-runs its batch with the Cypher MERGE files. The mapping itself (labels, keys, which
 * column links to which node) is the caller's: apexmem_neo/store/neo4j/procedures.py.
 */
public final class WriteProcedures {
    @Context public Transaction tx;

    /** How many rows a call stored; rows already stored are not counted. */
    public static final class Written {
        public long created;

        public Written(long created) {
            this.created = created;
        }
    }

    @Procedure(name = "apexmem.createNodes", mode = Mode.WRITE)
    @Description(
            "apexmem.createNodes(label, key, rows, links): one :label node per row whose key is"
                    + " not stored yet, with the row's non-null values as properties, related to"
                    + " the node each link names ({type, column, label, key, outgoing, required}).")
    public Stream<Written> createNodes(
            @Name("label") String label,
            @Name("key") String key,
            @Name("rows") List<Map<String, Object>> rows,
            @Name(value = "links", defaultValue = "[]") List<Map<String, Object>> links) {
        Label nodeLabel = Label.label(label);
        List<Link> parsedLinks = new ArrayList<>(links.size());
        for (Map<String, Object> link : links) {
            parsedLinks.add(Link.of(link));
        }
        NodeFinder finder = new NodeFinder(tx);
        long created = 0;
        for (Map<String, Object> row : rows) {
            Object id = required(row, key, label);
            if (tx.findNode(nodeLabel, key, id) != null) {
                continue;
            }
            Node node = tx.createNode(nodeLabel);
            try {
                setProperties(node, row);
            } catch (ConstraintViolationException raced) {
                throw new KeyTakenException(":" + label, key, id, raced);
            }
            for (Link link : parsedLinks) {
                link.relate(node, row, finder);
            }
            created++;
        }
        return Stream.of(new Written(created));
    }

    @Procedure(name = "apexmem.createRelationships", mode = Mode.WRITE)
    @Description(
            "apexmem.createRelationships(type, start, end, rows, keyColumns): one relationship"
                    + " per row from the start node to the end node ({column, label, key} each),"
                    + " the row's non-null values as properties, unless the start node already has"
                    + " one to the same end node with equal keyColumns.")
    public Stream<Written> createRelationships(
            @Name("type") String type,
            @Name("start") Map<String, Object> start,
            @Name("end") Map<String, Object> end,
            @Name("rows") List<Map<String, Object>> rows,
            @Name("keyColumns") List<String> keyColumns) {
        RelationshipType relType = RelationshipType.withName(type);
        Endpoint from = Endpoint.of(start);
        Endpoint to = Endpoint.of(end);
        NodeFinder finder = new NodeFinder(tx);
        long created = 0;
        for (Map<String, Object> row : rows) {
            Node startNode = from.find(row, finder);
            Node endNode = to.find(row, finder);
            if (hasRelationship(startNode, endNode, relType, row, keyColumns)) {
                continue;
            }
            try {
                setProperties(startNode.createRelationshipTo(endNode, relType), row);
            } catch (ConstraintViolationException raced) {
                throw new KeyTakenException(type, String.join(", ", keyColumns), row, raced);
            }
            created++;
        }
        return Stream.of(new Written(created));
    }

    /** Scans the start node's relationships of the type: the store's start nodes are events,
     * which have a handful each (the dense side, the entity, is the end node). */
    private static boolean hasRelationship(
            Node start, Node end, RelationshipType type, Map<String, Object> row, List<String> keys) {
        for (Relationship existing : start.getRelationships(Direction.OUTGOING, type)) {
            if (!existing.getEndNode().equals(end)) {
                continue;
            }
            boolean same = true;
            for (String column : keys) {
                same &= Objects.equals(existing.getProperty(column, null), row.get(column));
            }
            if (same) {
                return true;
            }
        }
        return false;
    }

    /**
     * A concurrent transaction stored the same key between our lookup and our write. Carries
     * the status of a failed uniqueness constraint (drivers raise their ConstraintError), so
     * the caller re-runs its batch with MERGE as it does for the Cypher files.
     */
    static final class KeyTakenException extends RuntimeException implements Status.HasStatus {
        KeyTakenException(String what, String key, Object value, Throwable cause) {
            super(what + " with " + key + " = " + value + " was stored concurrently", cause);
        }

        @Override
        public Status status() {
            return Status.Schema.ConstraintValidationFailed;
        }
    }

    private static void setProperties(Entity target, Map<String, Object> row) {
        for (Map.Entry<String, Object> column : row.entrySet()) {
            if (column.getValue() != null) {
                target.setProperty(column.getKey(), column.getValue());
            }
        }
    }

    private static Object required(Map<String, Object> row, String column, String what) {
        Object value = row.get(column);
        if (value == null) {
            throw new IllegalArgumentException(what + " row has no " + column + ": " + row);
        }
        return value;
    }

    private static Object option(Map<String, Object> spec, String name) {
        return required(spec, name, "link spec");
    }

    /** Finds nodes by a unique key, each at most once per call (many rows share a target). */
    private static final class NodeFinder {
        private final Transaction tx;
        private final Map<List<Object>, Node> found = new HashMap<>();

        NodeFinder(Transaction tx) {
            this.tx = tx;
        }

        Node find(Label label, String key, Object value) {
            List<Object> cacheKey = List.of(label.name(), key, value);
            Node node = found.get(cacheKey);
            if (node == null) {
                node = tx.findNode(label, key, value);
                if (node != null) {
                    found.put(cacheKey, node);
                }
            }
            return node;
        }
    }

    /** A node named by a row's column: {column, label, key}. */
    private record Endpoint(String column, Label label, String key) {
        static Endpoint of(Map<String, Object> spec) {
            return new Endpoint(
                    (String) option(spec, "column"),
                    Label.label((String) option(spec, "label")),
                    (String) option(spec, "key"));
        }

        Node find(Map<String, Object> row, NodeFinder finder) {
            Object value = required(row, column, "relationship");
            Node node = finder.find(label, key, value);
            if (node == null) {
                throw new IllegalArgumentException(
                        "no :" + label.name() + " with " + key + " = " + value);
            }
            return node;
        }
    }

    /** A relationship from a new node to the node a row's column names. */
    private record Link(
            RelationshipType type, String column, Label label, String key, boolean outgoing,
            boolean required) {
        static Link of(Map<String, Object> spec) {
            return new Link(
                    RelationshipType.withName((String) option(spec, "type")),
                    (String) option(spec, "column"),
                    Label.label((String) option(spec, "label")),
                    (String) option(spec, "key"),
                    Boolean.TRUE.equals(spec.get("outgoing")),
                    Boolean.TRUE.equals(spec.get("required")));
        }

        void relate(Node node, Map<String, Object> row, NodeFinder finder) {
            Object value = row.get(column);
            Node other = value == null ? null : finder.find(label, key, value);
            if (other == null) {
                if (required) {
                    throw new IllegalArgumentException(
                            "no :" + label.name() + " with " + key + " = " + value + " for "
                                    + type.name());
                }
                return;
            }
            if (outgoing) {
                node.createRelationshipTo(other, type);
            } else {
                other.createRelationshipTo(node, type);
            }
        }
    }
}
