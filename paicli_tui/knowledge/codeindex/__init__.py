"""The code index (P-9.4): files split into chunks along definitions, with
symbols, calls, imports and references read by tree-sitter, kept in the
workspace's SQLite database (see paicli_tui/knowledge/memory/database.py) with FTS5
full-text search ranked by BM25 and, when the provider serves embeddings,
a semantic re-ranking."""
