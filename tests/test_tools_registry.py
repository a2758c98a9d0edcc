"""The registry's contract with the agent loop: schemas, read-only flags,
argument validation, and results instead of exceptions."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import jsonschema
import pytest

from paicli_tui.config.settings import Settings
from paicli_tui.llm.types import ToolCall
from paicli_tui.policy.approval import AutoApprover
from paicli_tui.tools.base import ToolContext
from paicli_tui.agent.registry import ToolRegistry
from paicli_tui.tools.trusted_urls import TrustedUrls

ALL_BUT_SEARCH = ["read_file", "list_dir", "glob_files", "grep_code", "write_file", "edit_file",
                  "execute_command", "web_fetch"]


@pytest.fixture
def registry(tmp_path: Path) -> ToolRegistry:
    (tmp_path / "a.txt").write_text("alpha\n")
    return ToolRegistry(tmp_path, Settings(command_timeout=42))


def execute(registry: ToolRegistry, name: str, arguments: str):
    ctx = ToolContext("tester", threading.Event(), TrustedUrls(), AutoApprover())
    return registry.execute(ToolCall("id-1", name, arguments), ctx)


def test_schemas_are_openai_tools_with_valid_json_schemas(registry):
    schemas = registry.schemas()
    assert [s["function"]["name"] for s in schemas] == ALL_BUT_SEARCH == registry.names()
    for schema in schemas:
        assert schema["type"] == "function"
        assert set(schema["function"]) == {"name", "description", "parameters"}
        jsonschema.Draft202012Validator.check_schema(schema["function"]["parameters"])
        assert schema["function"]["parameters"]["additionalProperties"] is False
    command = next(s for s in schemas if s["function"]["name"] == "execute_command")
    assert "Default timeout 42 s" in command["function"]["description"]
    assert json.dumps(schemas) == json.dumps(ToolRegistry(registry.workspace, Settings(command_timeout=42)).schemas())


def test_read_only_flags(registry):
    assert [n for n in registry.names() if registry.is_read_only(n)] == [
        "read_file", "list_dir", "glob_files", "grep_code", "web_fetch"]
    assert not registry.is_read_only("no_such_tool")


def test_unknown_tool(registry):
    result = execute(registry, "delete_everything", "{}")
    assert not result.ok and result.content.startswith("unknown tool 'delete_everything'; available tools: read_file")


@pytest.mark.parametrize("arguments, message", [
    ('{"path": "a.txt"', "invalid arguments for read_file: not valid JSON"),
    ('["a.txt"]', "invalid arguments for read_file: expected a JSON object, got list"),
    ("{}", "invalid arguments for read_file: 'path' is a required property"),
    ('{"path": 7}', "invalid arguments for read_file: path: 7 is not of type 'string'"),
    ('{"path": "a.txt", "start_line": 0}', "invalid arguments for read_file: start_line: 0 is less than the minimum of 1"),
    ('{"path": "a.txt", "mode": "fast"}', "invalid arguments for read_file: Additional properties are not allowed"),
])
def test_argument_errors_name_the_argument(registry, arguments, message):
    result = execute(registry, "read_file", arguments)
    assert not result.ok
    assert result.content.startswith(message), result.content
    assert "\n" not in result.summary


def test_empty_arguments_mean_no_arguments(registry):
    assert execute(registry, "list_dir", "").ok


def test_os_errors_become_results(registry, tmp_path):
    result = execute(registry, "write_file", json.dumps({"path": "a.txt/inside.txt", "content": "x"}))
    assert not result.ok and result.content.startswith("write_file failed:")
    os.mkfifo(tmp_path / "pipe")
    fifo = execute(registry, "read_file", json.dumps({"path": "pipe"}))
    assert not fifo.ok and "not a regular file" in fifo.content


def test_default_approval_mode_is_auto():
    ctx = ToolContext("x", threading.Event(), TrustedUrls(), AutoApprover())
    assert ctx.approval_mode == "auto" and ctx.bus is None


def test_parallel_reads_share_one_registry(registry, tmp_path):
    for i in range(8):
        (tmp_path / f"f{i}.txt").write_text(f"content {i}\n")
    results = {}

    def read(i: int) -> None:
        results[i] = execute(registry, "read_file", json.dumps({"path": f"f{i}.txt"}))

    threads = [threading.Thread(target=read, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert all(results[i].content == f"content {i}\n" for i in range(8))
