"""The /undo screen and its conflict question (P-9.3)."""
