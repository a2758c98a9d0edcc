"""The seam between front ends and the engine: the ``SessionPort`` protocol,
the live session, the replay session, and what a session owns around a run
(attachments, shutdown, MCP wiring)."""
