"""Long-term memory (P-9.4): facts kept per workspace in an embedded SQLite
database that the code index shares (``database.py``)."""
