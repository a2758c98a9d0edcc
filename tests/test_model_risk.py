"""The optional model risk check: tool-less, fail-closed (issue 3, item 5)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from paicli_tui.config.loading import load_settings
from paicli_tui.llm.client import ChatClient
from paicli_tui.llm.offline.scripted import Reply, Script, ScriptedTransport
from paicli_tui.llm.types import ToolCall
from paicli_tui.prompting.assembler import PromptAssembler
from paicli_tui.policy.approval import Decision
from paicli_tui.tools.base import ToolContext
from paicli_tui.policy.model_risk import ModelRiskChecker
from paicli_tui.agent.registry import ToolRegistry
from paicli_tui.tools.trusted_urls import TrustedUrls


class Recording:
    def __init__(self, answer: Decision) -> None:
        self.answer = answer
        self.requests = []

    def request(self, request):
        self.requests.append(request)
        return self.answer


def _registry(tmp_path: Path, script: Script) -> ToolRegistry:
    client = ChatClient(base_url="http://scripted.invalid/v1", model="m", transport=ScriptedTransport(script), max_retries=0)
    prompt = PromptAssembler(tmp_path).prompt_file("risk-check.md")
    return ToolRegistry(tmp_path, load_settings(), risk_checker=ModelRiskChecker(client, prompt))


def _run(registry: ToolRegistry, approver, command: str):
    ctx = ToolContext(actor="react", cancel=threading.Event(), trusted_urls=TrustedUrls(), approver=approver)
    return registry.execute(ToolCall("c1", "execute_command", f'{{"command": "{command}"}}'), ctx)


def test_model_says_safe_so_the_command_runs_without_asking(tmp_path):
    script = Script({"risk-check": [Reply(content='{"risky": false, "reason": "prints text"}')]})
    approver = Recording(Decision.NO)
    result = _run(_registry(tmp_path, script), approver, "echo hi")
    assert result.ok and "hi" in result.content
    assert approver.requests == []
    (request,) = script.requests
    assert request.tools is None and "echo hi" in request.messages[-1]["content"]


@pytest.mark.parametrize(
    "answer",
    ['{"risky": true, "reason": "deletes caches"}', "sure, looks fine", '{"risky": "no"}'],
)
def test_risky_or_unreadable_verdicts_ask_the_person(tmp_path, answer):
    script = Script({"risk-check": [Reply(content=answer)]})
    approver = Recording(Decision.NO)
    result = _run(_registry(tmp_path, script), approver, "echo hi")
    assert not result.ok and result.content.startswith("[AUTO] denied:")
    assert len(approver.requests) == 1


def test_rules_catch_obvious_danger_without_a_model_call(tmp_path):
    script = Script({"risk-check": []})
    approver = Recording(Decision.NO)
    result = _run(_registry(tmp_path, script), approver, "sudo rm -rf /")
    assert not result.ok and script.requests == []
