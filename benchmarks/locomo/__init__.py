"""LOCOMO QA: the memory agent against full-context and plain-RAG baselines (issue 7)."""
