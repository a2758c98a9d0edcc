"""Under the compact profile an agent's history is compacted against the
context the server really has (its probe), not the character budget meant
for large remote models; a single long task turn is compacted too."""

from __future__ import annotations

import threading

from paicli_tui.agent.loop import Agent
from paicli_tui.agent.profile import agent_profile
from paicli_tui.agent.registry import ToolRegistry
from paicli_tui.config.settings import Settings
from paicli_tui.llm.client import ChatClient
from paicli_tui.llm.offline.scripted import Reply, Script, ScriptedTransport
from paicli_tui.llm.server_probe import ServerInfo, remember
from paicli_tui.policy.approval import AutoApprover
from paicli_tui.prompting.assembler import PromptAssembler

BASE = "http://127.0.0.1:9/v1"


def run_task(tmp_path, profile: str, context_tokens: int):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    for name in ("a.py", "b.py", "c.py"):
        (workspace / name).write_text(f"# {name}\n" + "x = 1\n" * 300)
    settings = Settings(provider="custom", base_url=BASE, model="m", max_retries=0, local_profile=profile,
                        probe_server=False)
    remember(ServerInfo(BASE, "llama-server", 1, context_tokens, "reported"))
    reads = [Reply(tool_calls=[("read_file", {"path": name})]) for name in ("a.py", "b.py", "c.py")]
    script = Script({"task": [*reads, Reply(content="read all three")]})
    client = ChatClient.from_settings(settings, session_id="s", transport=ScriptedTransport(script))
    kwargs = agent_profile(settings, PromptAssembler(workspace), BASE, "task", approval_mode="auto",
                           task_type="FILE_READ")
    agent = Agent("task_1", client=client, registry=ToolRegistry(workspace, settings), approver=AutoApprover(),
                  max_history_chars=settings.max_history_chars, **kwargs)
    outcome = agent.run_turn("read a.py, b.py and c.py", cancel=threading.Event())
    return outcome, script.requests


def stubbed(messages: list[dict]) -> int:
    return sum(str(m.get("content", "")).startswith("[compacted]") for m in messages)


def test_a_small_probed_context_compacts_a_single_long_task_turn(tmp_path):
    outcome, requests = run_task(tmp_path, "on", context_tokens=2048)
    assert outcome.status == "final"
    last = requests[-1].messages
    assert stubbed(last) == 1, "the oldest of three 1,800-character reads is stubbed, the two recent ones stay"
    results = [m["content"] for m in last if m["role"] == "tool"]
    assert "# c.py" in results[-1] and "# b.py" in results[-2]


def test_a_large_context_or_the_profile_off_keeps_the_history_whole(tmp_path):
    for profile, context, folder in (("on", 32_768, "large"), ("off", 2048, "off")):
        (tmp_path / folder).mkdir()
        outcome, requests = run_task(tmp_path / folder, profile, context_tokens=context)
        assert outcome.status == "final" and stubbed(requests[-1].messages) == 0, profile
