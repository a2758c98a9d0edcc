"""Screens for memory and the code index: /memory, /index, /search, /graph."""
