"""A registry view bound to a task's own tree: tools work there, the grants
and settings are shared, the person's workspace is untouched."""

from __future__ import annotations

import json
import threading

from paicli_tui.agent.registry import ToolRegistry
from paicli_tui.config.settings import Settings
from paicli_tui.llm.types import ToolCall
from paicli_tui.policy.approval import AutoApprover
from paicli_tui.tools.base import Tool, ToolContext, ToolResult
from paicli_tui.tools.trusted_urls import TrustedUrls


class _Named(Tool):
    read_only = True
    parameters = {"type": "object", "properties": {}}

    def __init__(self, name: str) -> None:
        self.name = name
        self.description = name

    def run(self, args, ctx) -> ToolResult:
        return ToolResult(True, self.name, self.name)


def call(registry: ToolRegistry, name: str, **arguments) -> ToolResult:
    ctx = ToolContext("worker-1", threading.Event(), TrustedUrls(), AutoApprover(), approval_mode="auto")
    return registry.execute(ToolCall("c1", name, json.dumps(arguments)), ctx)


def test_file_and_command_tools_work_in_the_task_tree(tmp_path, monkeypatch):
    workspace, tree = tmp_path / "ws", tmp_path / "tree"
    workspace.mkdir()
    tree.mkdir()
    registry = ToolRegistry(workspace, Settings(provider="custom", base_url="http://x.invalid/v1", model="m"))
    registry.add_tool(_Named("load_skill"))
    registry.add_tool(_Named("revert_turn"))
    registry.checkpoints = object()  # a recorder: the view must not use it
    view = registry.for_root(tree)

    assert call(view, "write_file", path="a.txt", content="in the tree").ok
    assert (tree / "a.txt").read_text() == "in the tree" and not (workspace / "a.txt").exists()
    monkeypatch.setenv("GIT_DIR", str(workspace / ".git"))
    result = call(view, "execute_command", command="pwd; echo GIT_DIR=${GIT_DIR:-unset}")
    assert str(tree) in result.content and "GIT_DIR=unset" in result.content
    # The session's own tools come along, except the one that reverts the person's workspace.
    assert "load_skill" in view.names() and "revert_turn" not in view.names()
    assert view.checkpoints is None and view.grants is registry.grants
    # The original registry is unchanged.
    assert registry.workspace == workspace.resolve() and "revert_turn" in registry.names()
    registry.checkpoints = None
    assert str(workspace) in call(registry, "execute_command", command="pwd").content
