"""How a session takes its MCP servers on: read the config, decide whether
the workspace's .mcp.json may start, keep the servers' secrets out of every
record, start the servers in the background. Kept apart from session.py so
the session only calls three functions."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from paicli_tui.config.paths import ConfigError
from paicli_tui.mcp.specs import McpConfig, load_mcp_config

if TYPE_CHECKING:
    from paicli_tui.config.settings import Settings
    from paicli_tui.events import EventBus
    from paicli_tui.mcp.manager import McpManager
    from paicli_tui.policy.redaction import Redactor
    from paicli_tui.agent.registry import ToolRegistry


def read_config(settings: "Settings", workspace: Path, warnings: list[str]) -> McpConfig:
    config = load_mcp_config(settings.mcp, workspace)
    warnings.extend(config.warnings)
    return config


def with_server_secrets(redactor: "Redactor", config: McpConfig) -> "Redactor":
    """The session's redactor, also knowing the values given to servers
    under credential-looking names (tokens in env and headers)."""
    from paicli_tui.policy.redaction import Redactor

    extra = config.secrets()
    if not extra:
        return redactor
    return Redactor([*redactor.secrets, *extra], patterns=redactor.patterns)


def workspace_trusted(config: McpConfig, workspace: Path, warnings: list[str], *, flag: bool) -> bool:
    """Whether the workspace's servers may start: ``--trust-mcp`` for this
    run, or the person agreed to this file's content before."""
    from paicli_tui.mcp.trust import is_trusted

    if config.workspace_file is None:
        return True
    if flag:
        return True
    try:
        if is_trusted(workspace, config.workspace_sha256):
            return True
    except ConfigError as exc:
        warnings.append(f"{exc}; no workspace .mcp.json is trusted")
    names = ", ".join(spec.name for spec in config.workspace_servers())
    warnings.append(f"{config.workspace_file} lists MCP servers ({names}) that start only once you agree: "
                    "/mcp in the app, or `paicli run --trust-mcp`")
    return False


def start_servers(config: McpConfig, settings: "Settings", bus: "EventBus", workspace: Path,
                  registry: "ToolRegistry", *, trusted: bool, flag: bool = False) -> "McpManager | None":
    """The session's manager with every allowed server starting; None when
    no server is configured at all. ``flag``: ``--trust-mcp`` was given."""
    if not config.servers:
        return None
    from paicli_tui.mcp.manager import McpManager

    manager = McpManager(config, settings.mcp, bus, workspace, trusted=trusted, tool_timeout=settings.tool_timeout,
                         redact=registry.redactor.text)
    registry.attach_mcp(manager)
    manager.start(trusted_by_flag=flag)
    return manager


def prepare_run(manager: "McpManager | None", assembler, bus: "EventBus") -> None:
    """Before a run: wait (bounded) for servers still starting, then fix the
    resource index every agent of this run gets in its prompt (P-2.4)."""
    if manager is None:
        return
    starting = [s.name for s in manager.statuses() if s.state == "starting"]
    if starting:
        from paicli_tui.events import AgentNote

        bus.publish(AgentNote("session", f"waiting for MCP servers to start: {', '.join(starting)}"))
        manager.wait_started()
    assembler.set_mcp_resources(manager.resource_index())
