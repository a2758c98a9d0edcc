"""The ground floor: settings and their loader, the permission rule grammar,
MCP settings, packaged resources, secret names and atomic file writes.
Nothing here imports from the engine above it."""
