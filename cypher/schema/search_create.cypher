// Search documents for the Neo4jNativeIndex: dedicated nodes {{label}} linked to graph nodes.
// {{label}}, {{prefix}} and {{dimensions}} are validated identifiers / integers filled in by the
// loader (labels and index names cannot be query parameters); values are always parameters.
CREATE CONSTRAINT {{prefix}}_doc_id IF NOT EXISTS FOR (n:{{label}}) REQUIRE n.doc_id IS UNIQUE;
CREATE INDEX {{prefix}}_kind IF NOT EXISTS FOR (n:{{label}}) ON (n.kind);
CREATE INDEX {{prefix}}_conversation IF NOT EXISTS FOR (n:{{label}}) ON (n.conversation_id);
CREATE INDEX {{prefix}}_session IF NOT EXISTS FOR (n:{{label}}) ON (n.session_id);
CREATE FULLTEXT INDEX {{prefix}}_text_terms IF NOT EXISTS FOR (n:{{label}}) ON EACH [n.text_terms]
  OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace'}};
CREATE FULLTEXT INDEX {{prefix}}_context_terms IF NOT EXISTS FOR (n:{{label}}) ON EACH [n.context_terms]
  OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace'}};
CREATE VECTOR INDEX {{prefix}}_text_vector IF NOT EXISTS FOR (n:{{label}}) ON n.text_vector
  OPTIONS {indexConfig: {`vector.dimensions`: {{dimensions}}, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX {{prefix}}_context_vector IF NOT EXISTS FOR (n:{{label}}) ON n.context_vector
  OPTIONS {indexConfig: {`vector.dimensions`: {{dimensions}}, `vector.similarity_function`: 'cosine'}};
