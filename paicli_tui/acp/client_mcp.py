"""MCP servers an editor passes with ``session/new``. They are the
person's own configuration (like config.toml), so they start without the
trust question a workspace's .mcp.json gets, through the same checks: the
``[mcp.servers]`` settings model (a literal secret under a credential-looking
name is refused) and the same manager."""

from __future__ import annotations

from acp.schema import HttpMcpServer, McpServerStdio
from pydantic import ValidationError

from paicli_tui.config.mcp_settings import McpServerSettings
from paicli_tui.config.settings import Settings


def with_client_servers(settings: Settings, servers: list, warnings: list[str]) -> Settings:
    if not servers:
        return settings
    configured = dict(settings.mcp.servers)
    for server in servers:
        name = getattr(server, "name", "?")
        try:
            if isinstance(server, McpServerStdio):
                entry = McpServerSettings(command=server.command, args=list(server.args),
                                          env={item.name: item.value for item in server.env or ()})
            elif isinstance(server, HttpMcpServer):
                entry = McpServerSettings(url=server.url,
                                          headers={item.name: item.value for item in server.headers or ()})
            else:
                warnings.append(f"MCP server {name} from the editor: its transport is not supported; not started")
                continue
        except ValidationError as exc:
            warnings.append(f"MCP server {name} from the editor: {exc.errors()[0]['msg']}; not started")
            continue
        configured[name] = entry
    try:
        return settings.model_copy(update={"mcp": settings.mcp.model_copy(update={"servers": configured})})
    except ValidationError as exc:
        warnings.append(f"MCP servers from the editor: {exc.errors()[0]['msg']}; none started")
        return settings
