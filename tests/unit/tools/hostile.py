# ruff: noqa: E501 - a table of queries reads best one per line
"""Hostile queries for the security tests: each must be refused or bounded, and the graph
must be unchanged after all of them (SQLite in the unit tests, Neo4j in the integration ones).

Writes name the label TqxHostile or the test graph's tqx ids, so that nothing outside the
test graph could change even if a guard failed.
"""

from __future__ import annotations

from typing import Final

REFUSED_CYPHER: Final[list[str]] = [
    "CREATE (n:TqxHostile {x: 1})",
    "MERGE (n:TqxHostile {x: 1})",
    "MATCH (n:Entity {entity_id: 'tqx_ent_alice'}) SET n.name = 'pwned'",
    "MATCH (n:Entity {entity_id: 'tqx_ent_alice'}) SET n += {name: 'pwned'}",
    "MATCH (n:Entity {entity_id: 'tqx_ent_alice'}) SET n:TqxHostile",
    "MATCH (n:Entity {entity_id: 'tqx_ent_alice'}) sEt n.name = 'pwned'",
    "MATCH (n:Fact {fact_id: 'tqx_fact_00'}) DELETE n",
    "MATCH (n:Fact {fact_id: 'tqx_fact_00'}) DETACH DELETE n",
    "MATCH (n:TqxHostile) DETACH DELETE n",
    "MATCH (n:Entity {entity_id: 'tqx_ent_alice'}) REMOVE n.name",
    "MATCH (n:Entity {entity_id: 'tqx_ent_alice'}) REMOVE n:Entity",
    "LOAD CSV FROM 'file:///etc/passwd' AS line RETURN line",
    "LOAD CSV WITH HEADERS FROM 'http://127.0.0.1:9/x.csv' AS row CREATE (:TqxHostile {v: row.x})",
    "CALL db.createLabel('TqxHostile')",
    "CALL db.createProperty('tqx_hostile')",
    "CALL db.createRelationshipType('TQX_HOSTILE')",
    "CALL `db`.`createLabel`('TqxHostile')",
    "CALL dbms.setConfigValue('db.logs.query.enabled', 'OFF')",
    "CALL dbms.listConfig()",
    "CALL dbms.killQueries(['query-1'])",
    "CALL db.clearQueryCaches()",
    "CALL db.awaitIndexes(1)",
    "CALL tx.setMetaData({tqx: 1})",
    "CALL apoc.create.node(['TqxHostile'], {x: 1})",
    "CALL apoc.periodic.iterate('MATCH (n:TqxHostile) RETURN n', 'DETACH DELETE n', {})",
    "CALL apoc.cypher.runWrite('CREATE (:TqxHostile)', {})",
    "RETURN apoc.cypher.runFirstColumnSingle('CREATE (n:TqxHostile) RETURN n', {})",
    "MATCH (n:Entity) RETURN n LIMIT 1; CREATE (:TqxHostile)",
    "MATCH (n:Entity) RETURN n LIMIT 1;\nMATCH (m:Entity {entity_id: 'tqx_ent_bob'}) DETACH DELETE m",
    "MATCH (n:Entity) /* only a read */ CREATE (:TqxHostile) RETURN n",
    "/* CREATE */ MATCH (n:Entity) WITH n LIMIT 1 CREATE (:TqxHostile) RETURN count(*)",
    "MATCH (n:Entity {entity_id: 'tqx_ent_alice'})\n// a comment\nDETACH DELETE n",
    "MATCH (n:Entity {entity_id: 'tqx_ent_alice'}) // comment ' still comment\nSET n.x = 1",
    "MATCH (n:Entity) WHERE n.name = 'a /* ' SET n.x = 1 RETURN n",
    "MATCH (n:Entity {entity_id: 'tqx_ent_alice'}) FOREACH (x IN [1] | CREATE (:TqxHostile))",
    "UNWIND range(1, 4) AS i CALL (i) { CREATE (:TqxHostile {i: i}) } IN TRANSACTIONS OF 2 ROWS",
    "CALL () { CREATE (:TqxHostile) } RETURN 1",
    "MATCH (n:Entity {entity_id: 'tqx_ent_alice'}) CALL (n) { SET n.x = 1 } RETURN n",
    "MATCH (n:Entity {entity_id: 'tqx_ent_alice'}) MERGE (n)-[:TQX_HOSTILE]->(n)",
    "CREATE INDEX tqx_hostile_idx IF NOT EXISTS FOR (n:TqxHostile) ON (n.x)",
    "CREATE CONSTRAINT tqx_hostile_c IF NOT EXISTS FOR (n:TqxHostile) REQUIRE n.x IS UNIQUE",
    "DROP INDEX fact_timeline",
    "DROP CONSTRAINT entity_id_unique",
    "CREATE DATABASE tqxhostile",
    "ALTER DATABASE neo4j SET ACCESS READ ONLY",
    "GRANT ALL ON DATABASE * TO PUBLIC",
    "SHOW TRANSACTIONS",
    "TERMINATE TRANSACTIONS 'neo4j-transaction-1'",
    "USE system SHOW DATABASES",
    "EXPLAIN CREATE (:TqxHostile)",
    "PROFILE MATCH (n:TqxHostile) RETURN count(n)",
    "CYPHER runtime=slotted CREATE (:TqxHostile)",
    "INSERT (:TqxHostile {x: 1})",
    "MATCH (n:Entity {entity_id: 'tqx_ent_alice'}) WITH n SET n.name = 'pwned' RETURN n",
    "",
    "   ;  ",
]

BOUNDED_CYPHER: Final[list[str]] = [
    "MATCH (a:Fact), (b:Fact), (c:Fact) RETURN count(*)",
    "MATCH (a:Fact), (b:Fact) RETURN a.fact_id, b.fact_id",
    "UNWIND range(1, 100000000) AS i RETURN i",
    "MATCH p = (a)-[*]-(b) RETURN count(p)",
    "UNWIND range(1, 100000000) AS i WITH i ORDER BY i DESC RETURN i",
]

REFUSED_SQL: Final[list[str]] = [
    "INSERT INTO entities (entity_id, name) VALUES ('tqx_x', 'x')",
    "insert or replace into properties (property_id) values ('tqx_x')",
    "REPLACE INTO entities (entity_id) VALUES ('tqx_x')",
    "INSERT INTO properties (property_id, name) VALUES ('p', 'n') ON CONFLICT DO UPDATE SET name = 'x'",
    "UPDATE entities SET name = 'pwned'",
    "UPDATE facts SET t_to = NULL WHERE 1 -- close nothing",
    "DELETE FROM facts",
    "DELETE FROM facts WHERE fact_id IN (SELECT fact_id FROM facts)",
    "DROP TABLE facts",
    "DROP INDEX facts_timeline",
    "CREATE TABLE tqx_hostile (x)",
    "CREATE VIEW tqx_view AS SELECT 1",
    "CREATE TRIGGER tqx_t AFTER INSERT ON facts BEGIN DELETE FROM facts; END",
    "ALTER TABLE facts ADD COLUMN tqx INTEGER",
    "ATTACH DATABASE '/tmp/tqx_hostile.db' AS h",
    "DETACH DATABASE main",
    "PRAGMA query_only = OFF",
    "PRAGMA writable_schema = ON",
    "PRAGMA journal_mode = DELETE",
    "VACUUM",
    "VACUUM INTO '/tmp/tqx_hostile_copy.db'",
    "REINDEX",
    "ANALYZE",
    "BEGIN; DELETE FROM facts; COMMIT",
    "SAVEPOINT tqx",
    "SELECT 1; DELETE FROM facts",
    "SELECT * FROM facts; DROP TABLE facts;",
    "select * from FACTS; delete from FACTS",
    "SELECT 1 /* harmless */; UPDATE entities SET name = 'x'",
    "SELECT 1 UNION SELECT 2; UPDATE entities SET name = 'x'",
    "WITH x AS (SELECT 1) DELETE FROM facts",
    "WITH x AS (SELECT 1) INSERT INTO entities SELECT * FROM entities",
    "SELECT load_extension('/tmp/tqx.so')",
    "SELECT writefile('/tmp/tqx_hostile', 'x')",
    "SELECT * FROM sqlite_master",
    "SELECT * FROM sqlite_schema",
    "SELECT * FROM pragma_table_info('facts')",
    "SELECT * FROM main.facts",
    "SELECT * FROM temp.sqlite_temp_master",
    "SELECT zeroblob(1000000000)",
    "SELECT randomblob(1000000000)",
    "SELECT * FROM facts WHERE fact_id = ?",
    "SELECT * FROM schema_version",
    "SELECT printf('%.*c', 1000000000, 'x')",
    "SELECT format('%.*c', 1000000000, 'x')",
]

BOUNDED_SQL: Final[list[str]] = [
    "SELECT * FROM facts a, facts b, facts c, facts d",
    "SELECT count(*) FROM facts a, facts b, facts c, facts d, facts e, facts f2",
    "SELECT replace(hex(zeroblob(0)), '', '') || substr(quote(1), 1) FROM facts a, facts b",
]

RECURSIVE_SQL: Final = (
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
)
"""Runs forever on SQLite unless stopped: bounded by the time limit (refused on Neo4j)."""
