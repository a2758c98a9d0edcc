"""Checkpoints: the state of every file a tool changes, kept from just before
the change, so a turn, a run or one task can be undone (P-9.3).

``store`` keeps them on disk (per workspace, in the data dir, bounded by
size), ``recorder`` records them as tools run (thread-safe: /plan and /team
workers write at once), ``revert`` works out and applies an undo.
"""
