"""paicli-tui: a terminal coding agent with a full-screen Textual UI."""

__version__ = "0.1.0"
