"""Memory and the code index of one workspace (P-9.4): the per-workspace
SQLite database, facts, the code index and graph, and the service a session
shares with its agents."""
