"""MCP client (P-9.1): servers from config.toml and a workspace .mcp.json,
their tools for tool-using agents, their resources in the prompt and in
``@server:uri`` attachments. Built on the official ``mcp`` SDK, which only
``connection`` imports (so a session without servers never loads it)."""
