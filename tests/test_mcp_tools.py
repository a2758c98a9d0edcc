"""MCP tools as registry tools (P-9.1): names, results as text, the gate's
questions, grant rules, and @server:uri mentions. No server here: the SDK's
own types stand in for what a server sends."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from mcp import types

from paicli_tui.config.settings import Settings
from paicli_tui.llm.types import ToolCall
from paicli_tui.mcp.mentions import find_mentions
from paicli_tui.mcp.tool import McpTool, exposed_name, result_text
from paicli_tui.policy.approval import Decision
from paicli_tui.tools.base import ToolContext
from paicli_tui.policy.grants import Grant, parse_rule, proposed_grants
from paicli_tui.agent.registry import ToolRegistry
from paicli_tui.tools.trusted_urls import TrustedUrls


class FakeManager:
    """Answers calls as a server would, and remembers them."""

    def __init__(self, workspace: Path, reply: types.CallToolResult) -> None:
        self.workspace = workspace
        self.reply = reply
        self.calls: list[tuple] = []
        self._tools: dict[str, McpTool] = {}

    def add(self, remote: types.Tool, *, trust_read_only: bool = True) -> McpTool:
        tool = McpTool(self, "srv", remote, exposed_name("srv", remote.name, set(self._tools)),
                       trust_read_only=trust_read_only, timeout=None)
        self._tools[tool.name] = tool
        return tool

    def tools(self):
        return list(self._tools.values())

    def tool(self, name):
        return self._tools.get(name)

    def call_tool(self, server, tool, arguments, seconds, cancel):
        self.calls.append((server, tool, arguments))
        return self.reply


class Recorder:
    def __init__(self, answer=Decision.YES) -> None:
        self.answer = answer
        self.requests = []

    def request(self, request):
        self.requests.append(request)
        return self.answer


SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}


def remote(name="search", read_only=False, schema=SCHEMA) -> types.Tool:
    return types.Tool(name=name, description="Search the docs.", inputSchema=schema,
                      annotations=types.ToolAnnotations(readOnlyHint=read_only))


def registry_with(tmp_path, *tools, reply=None, allow=()):
    settings = Settings(provider="demo", permissions={"allow": list(allow)})
    registry = ToolRegistry(tmp_path, settings)
    manager = FakeManager(tmp_path, reply or types.CallToolResult(content=[types.TextContent(type="text", text="hit")]))
    for tool in tools:
        manager.add(tool)
    registry.attach_mcp(manager)
    return registry, manager


def context(mode="auto", approver=None) -> ToolContext:
    return ToolContext("react", threading.Event(), TrustedUrls(), approver or Recorder(), approval_mode=mode)


def test_names_are_function_names_a_provider_accepts():
    assert exposed_name("docs", "search", set()) == "mcp__docs__search"
    assert exposed_name("docs", "files.read v2", set()) == "mcp__docs__files_read_v2"
    long = exposed_name("docs", "x" * 100, set())
    assert len(long) == 64 and long.startswith("mcp__docs__xxx")
    assert exposed_name("docs", "a.b", {"mcp__docs__a_b"}) == "mcp__docs__a_b_2"


def test_the_tool_is_offered_with_the_servers_schema_and_never_runs_in_parallel(tmp_path):
    registry, _ = registry_with(tmp_path, remote(read_only=True))
    schema = next(s for s in registry.schemas() if s["function"]["name"] == "mcp__srv__search")
    assert schema["function"]["parameters"] == SCHEMA
    assert schema["function"]["description"] == "[MCP server srv] Search the docs."
    assert not registry.is_read_only("mcp__srv__search")  # P-6.4: MCP calls run alone, in order
    assert registry.names()[-1] == "mcp__srv__search"


def test_an_invalid_call_never_reaches_the_server(tmp_path):
    registry, manager = registry_with(tmp_path, remote(read_only=True))
    result = registry.execute(ToolCall("c1", "mcp__srv__search", '{"q": 3}'), context())
    assert not result.ok and "invalid arguments for mcp__srv__search: q: 3 is not of type 'string'" in result.content
    assert manager.calls == []


def test_a_read_only_tool_runs_unasked_in_auto_and_asks_in_ask(tmp_path):
    registry, manager = registry_with(tmp_path, remote(read_only=True))
    approver = Recorder()
    assert registry.execute(ToolCall("c1", "mcp__srv__search", '{"q": "x"}'), context("auto", approver)).ok
    assert approver.requests == []
    assert registry.execute(ToolCall("c2", "mcp__srv__search", '{"q": "y"}'), context("ask", approver)).ok
    [asked] = approver.requests
    assert asked.tool == "mcp__srv__search" and "every MCP tool call" in asked.reason
    assert '"q": "y"' in asked.preview and [g.rule for g in asked.grants] == ["tool: mcp__srv__search",
                                                                              "tool: mcp__srv__*"]
    assert manager.calls == [("srv", "search", {"q": "x"}), ("srv", "search", {"q": "y"})]


def test_a_tool_that_may_change_things_asks_in_auto_unless_a_rule_allows_it(tmp_path):
    registry, manager = registry_with(tmp_path, remote(name="write"))
    approver = Recorder(Decision.NO)
    denied = registry.execute(ToolCall("c1", "mcp__srv__write", '{"q": "x"}'), context("auto", approver))
    assert not denied.ok and manager.calls == [] and "not mark it read-only" in approver.requests[0].reason
    allowed, manager = registry_with(tmp_path, remote(name="write"), allow=["tool: mcp__srv__*"])
    assert allowed.execute(ToolCall("c2", "mcp__srv__write", '{"q": "x"}'), context("ask", Recorder(Decision.NO))).ok


def test_a_servers_read_only_mark_can_be_ignored(tmp_path):
    manager = FakeManager(tmp_path, types.CallToolResult(content=[]))
    tool = manager.add(remote(read_only=True), trust_read_only=False)
    assert tool.read_only_hint and tool.approval_reason("auto") is not None


def test_an_error_result_is_a_failed_result_with_the_servers_words(tmp_path):
    reply = types.CallToolResult(content=[types.TextContent(type="text", text="rate limited")], isError=True)
    registry, _ = registry_with(tmp_path, remote(read_only=True), reply=reply)
    result = registry.execute(ToolCall("c1", "mcp__srv__search", '{"q": "x"}'), context())
    assert not result.ok and result.content == "rate limited" and result.summary == "error: rate limited"


def test_results_become_text_whatever_the_blocks():
    blob = types.BlobResourceContents(uri="file:///a.bin", mimeType="application/octet-stream", blob="AAAA")
    result = types.CallToolResult(content=[
        types.TextContent(type="text", text="line"),
        types.ImageContent(type="image", data="AAAAAAAA", mimeType="image/png"),
        types.EmbeddedResource(type="resource", resource=types.TextResourceContents(uri="docs://a", text="inner")),
        types.EmbeddedResource(type="resource", resource=blob),
        types.ResourceLink(type="resource_link", uri="docs://b", name="b", description="more"),
    ])
    assert result_text(result).splitlines() == [
        "line", "[image: image/png, about 6 bytes, not shown]", "[resource docs://a]", "inner",
        "[binary resource file:///a.bin: application/octet-stream, not shown]", "[resource link docs://b — more]"]
    structured = types.CallToolResult(content=[], structuredContent={"result": 5})
    assert result_text(structured) == '{\n  "result": 5\n}'
    huge = types.CallToolResult(content=[types.TextContent(type="text", text="y" * 70_000)])
    assert result_text(huge).endswith("[… 10000 more characters cut by paicli]")


def test_a_server_schema_that_is_not_json_schema_is_refused():
    from jsonschema.exceptions import SchemaError

    with pytest.raises(SchemaError):
        FakeManager(Path("."), None).add(remote(schema={"type": "object", "properties": {"q": {"type": 7}}}))


@pytest.mark.parametrize("rule, covered, not_covered", [
    ("tool: mcp__srv__search", "mcp__srv__search", "mcp__srv__searcher"),
    ("tool: mcp__srv__*", "mcp__srv__write", "mcp__other__write"),
])
def test_tool_rules_cover_one_tool_or_one_server(rule, covered, not_covered):
    grant = parse_rule(rule)
    assert grant.rule == rule and grant.covers(covered, {}, Path("."))
    assert not grant.covers(not_covered, {}, Path(".")) and not grant.covers("write_file", {}, Path("."))


@pytest.mark.parametrize("rule", ["tool: write_file", "tool: mcp__srv", "tool: mcp__srv__a*b", "tool: mcp____x"])
def test_a_tool_rule_names_an_mcp_tool(rule):
    with pytest.raises(ValueError, match="names an MCP tool"):
        parse_rule(rule)


def test_what_always_offers_for_an_mcp_call():
    offered = proposed_grants("mcp__srv__search", {}, Path("."))
    assert offered == (Grant("tool", "mcp__srv__search"), Grant("tool", "mcp__srv__*"))
    assert [g.describe() for g in offered] == ["every call of the MCP tool mcp__srv__search",
                                               "every tool of MCP server srv"]


@pytest.mark.parametrize("text, found", [
    ("read @docs:docs://guide please", [("docs", "docs://guide")]),
    ("(@docs:docs://guide), and @docs:file:///a/b.md.", [("docs", "file:///a/b.md")]),
    ("see @docs:docs://guide, @gh:issue://12", [("docs", "docs://guide"), ("gh", "issue://12")]),
    ("mail me@docs:x or @unknown:docs://a or @docs: alone", []),
    ("@src/app.py and @docs:docs://guide", [("docs", "docs://guide")]),
])
def test_mentions_name_a_known_server_and_a_uri(text, found):
    mentions = find_mentions(text, ["docs", "gh"])
    assert [(m.server, m.uri) for m in mentions] == found
    for mention in mentions:
        assert text[mention.start:mention.end] == mention.text
