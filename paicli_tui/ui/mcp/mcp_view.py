"""What /mcp shows for the session's MCP servers, as styled text: one line
per server, and the chosen server's tools and resources. No widgets here,
so the wording is easy to test."""

from __future__ import annotations

from textual.content import Content

#: state → (glyph, style); narrow glyphs so the names line up.
STATES = {
    "ready": ("●", "$success"),
    "starting": ("◌", "$text-muted"),
    "failed": ("✗", "$error"),
    "exited": ("✗", "$error"),
    "stopping": ("◌", "$text-muted"),
    "stopped": ("○", "$text-muted"),
    "untrusted": ("?", "$warning"),
}
NO_SERVERS = ("No MCP servers. Add one as [mcp.servers.NAME] in config.toml, or in this workspace's .mcp.json "
              "({\"mcpServers\": {…}}): README → MCP servers.")
MAX_DESCRIPTION = 90


def server_line(status) -> Content:
    glyph, style = STATES.get(status.state, ("·", "$text-muted"))
    where = "config.toml" if status.source == "config" else ".mcp.json"
    detail = f" — {status.detail}" if status.detail else ""
    return Content.assemble(
        Content.styled(glyph, style), " ", Content.styled(status.name, "bold"), "  ", Content.styled(status.state, style),
        "  ", Content.styled(f"{status.transport} · {where}{detail}", "$text-muted"),
    )


def server_details(status) -> Content:
    where = f"pid {status.pid} · {status.target}" if status.pid else status.target
    lines: list[Content] = [Content.styled(where, "$text-muted")]
    if status.tools:
        lines.append(Content.styled(f"Tools ({len(status.tools)})", "bold"))
        for tool in status.tools:
            badge = Content.styled("  read-only", "$success") if tool.read_only else Content("")
            lines.append(Content.assemble(f"  {tool.name}", badge,
                                          Content.styled(f"  {_short(_plain(tool.description))}", "$text-muted")))
    elif status.state == "ready":
        lines.append(Content.styled("No tools.", "italic"))
    if status.resources:
        lines.append(Content.styled(f"Resources ({len(status.resources)}) — attach one with @{status.name}:URI",
                                    "bold"))
        for resource in status.resources:
            text = f"  — {_short(resource.description)}" if resource.description else ""
            lines.append(Content.assemble(f"  {resource.uri}", Content.styled(text, "$text-muted")))
    return Content("\n").join(lines)


def _plain(description: str) -> str:
    """The description without the ``[MCP server NAME]`` the model sees."""
    return description.split("] ", 1)[1] if description.startswith("[MCP server ") and "] " in description else description


def _short(text: str) -> str:
    return text if len(text) <= MAX_DESCRIPTION else text[: MAX_DESCRIPTION - 1] + "…"
