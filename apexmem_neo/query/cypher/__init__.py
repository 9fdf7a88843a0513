"""Cypher as the agent writes it: ``escapes`` decodes Neo4j's Unicode escapes first, ``guard``
admits one read-only statement, ``scope`` confines it to one scope's subgraph on the parse tree
(lexed and printed by ``tokens``); ``quoting`` writes names and literals safely and
``regex_safety`` refuses a ``=~`` pattern that could backtrack for hours."""
