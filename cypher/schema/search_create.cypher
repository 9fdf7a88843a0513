// Search documents for the Neo4jNativeIndex: dedicated nodes {{label}} linked to graph nodes.
// {{label}}, {{prefix}} and {{dimensions}} are validated identifiers / integers filled in by the
// loader (labels and index names cannot be query parameters); values are always parameters.
CREATE CONSTRAINT {{prefix}}_doc_id IF NOT EXISTS FOR (n:{{label}}) REQUIRE n.doc_id IS UNIQUE;
CREATE INDEX {{prefix}}_scope IF NOT EXISTS FOR (n:{{label}}) ON (n.scope);
CREATE INDEX {{prefix}}_kind IF NOT EXISTS FOR (n:{{label}}) ON (n.kind);
CREATE INDEX {{prefix}}_conversation IF NOT EXISTS FOR (n:{{label}}) ON (n.conversation_id);
CREATE INDEX {{prefix}}_session IF NOT EXISTS FOR (n:{{label}}) ON (n.session_id);
CREATE FULLTEXT INDEX {{prefix}}_text_terms IF NOT EXISTS FOR (n:{{label}}) ON EACH [n.text_terms]
  OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace'}};
CREATE FULLTEXT INDEX {{prefix}}_context_terms IF NOT EXISTS FOR (n:{{label}}) ON EACH [n.context_terms]
  OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace'}};
// One vector index per kind and field: a search within a kind walks only that kind's graph
// (no filter after the walk, no exact fallback), as on Elasticsearch.
CREATE VECTOR INDEX {{prefix}}_entity_text_vector IF NOT EXISTS FOR (n:{{label}}) ON n.entity_text_vector
  OPTIONS {indexConfig: {`vector.dimensions`: {{dimensions}}, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX {{prefix}}_entity_context_vector IF NOT EXISTS FOR (n:{{label}}) ON n.entity_context_vector
  OPTIONS {indexConfig: {`vector.dimensions`: {{dimensions}}, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX {{prefix}}_property_text_vector IF NOT EXISTS FOR (n:{{label}}) ON n.property_text_vector
  OPTIONS {indexConfig: {`vector.dimensions`: {{dimensions}}, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX {{prefix}}_property_context_vector IF NOT EXISTS FOR (n:{{label}}) ON n.property_context_vector
  OPTIONS {indexConfig: {`vector.dimensions`: {{dimensions}}, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX {{prefix}}_event_text_vector IF NOT EXISTS FOR (n:{{label}}) ON n.event_text_vector
  OPTIONS {indexConfig: {`vector.dimensions`: {{dimensions}}, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX {{prefix}}_event_context_vector IF NOT EXISTS FOR (n:{{label}}) ON n.event_context_vector
  OPTIONS {indexConfig: {`vector.dimensions`: {{dimensions}}, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX {{prefix}}_turn_text_vector IF NOT EXISTS FOR (n:{{label}}) ON n.turn_text_vector
  OPTIONS {indexConfig: {`vector.dimensions`: {{dimensions}}, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX {{prefix}}_turn_context_vector IF NOT EXISTS FOR (n:{{label}}) ON n.turn_context_vector
  OPTIONS {indexConfig: {`vector.dimensions`: {{dimensions}}, `vector.similarity_function`: 'cosine'}};
