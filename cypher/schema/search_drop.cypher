// Drop the search indexes of one namespace (the nodes are deleted by queries/search_delete_all).
DROP INDEX {{prefix}}_entity_text_vector IF EXISTS;
DROP INDEX {{prefix}}_entity_context_vector IF EXISTS;
DROP INDEX {{prefix}}_property_text_vector IF EXISTS;
DROP INDEX {{prefix}}_property_context_vector IF EXISTS;
DROP INDEX {{prefix}}_event_text_vector IF EXISTS;
DROP INDEX {{prefix}}_event_context_vector IF EXISTS;
DROP INDEX {{prefix}}_turn_text_vector IF EXISTS;
DROP INDEX {{prefix}}_turn_context_vector IF EXISTS;
// The shared vector indexes of versions before per-kind indexes.
DROP INDEX {{prefix}}_context_vector IF EXISTS;
DROP INDEX {{prefix}}_text_vector IF EXISTS;
DROP INDEX {{prefix}}_context_terms IF EXISTS;
DROP INDEX {{prefix}}_text_terms IF EXISTS;
DROP INDEX {{prefix}}_session IF EXISTS;
DROP INDEX {{prefix}}_conversation IF EXISTS;
DROP INDEX {{prefix}}_kind IF EXISTS;
DROP INDEX {{prefix}}_scope IF EXISTS;
DROP CONSTRAINT {{prefix}}_doc_id IF EXISTS;
