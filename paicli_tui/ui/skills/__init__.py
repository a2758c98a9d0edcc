"""The /skills screen (P-9.2)."""
