"""Isolation of what agents run: the OS sandbox for commands."""
