"""``network: allow`` rules: the sandbox's network stays off unless a rule
covers the command or the person lets one run have it. Real commands in the
real sandbox, against a loopback server that records what reaches it."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from paicli_tui.agent.registry import ToolRegistry
from paicli_tui.config.permission_rules import parse_permission_rule
from paicli_tui.config.settings import ConfigError, Permissions, Settings
from paicli_tui.config.loading import load_settings
from paicli_tui.llm.types import ToolCall
from paicli_tui.policy.approval import ApprovalAnswer, AutoApprover, Decision
from paicli_tui.tools.base import ToolContext
from paicli_tui.tools.trusted_urls import TrustedUrls
from tests.support.sandbox import collector, require_sandbox

FETCH = "import sys, urllib.request; urllib.request.urlopen(sys.argv[1], data=b'SECRET', timeout=5)"


@pytest.fixture
def workspace(tmp_path):
    require_sandbox()
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "fetch.py").write_text(FETCH + "\n")
    return ws


def execute(workspace: Path, approver=None, mode: str = "auto", allow: list[str] = (), command: str = ""):
    ctx = ToolContext("tester", threading.Event(), TrustedUrls(), approver or AutoApprover(), approval_mode=mode)
    settings = Settings(command_timeout=30, permissions=Permissions(allow=list(allow)))
    registry = ToolRegistry(workspace, settings)
    return registry.execute(ToolCall("x", "execute_command", json.dumps({"command": command})), ctx)


def test_a_command_rule_gives_that_command_the_network_and_no_other(workspace):
    with collector() as seen:
        url = f"{seen.url}/by-rule"
        allowed = execute(workspace, allow=["network: allow command: python3 fetch.py"],
                          command=f"python3 fetch.py {url}")
        assert allowed.ok, allowed.content
        assert seen.requests == ["POST /by-rule SECRET"]
        other = execute(workspace, allow=["network: allow command: python3 fetch.py"],
                        command=f"python3 -c \"{FETCH}\" {url}")
        assert not other.ok and "network is off" in other.content
        compound = execute(workspace, allow=["network: allow command: python3 fetch.py"],
                           command=f"python3 fetch.py {url}; python3 fetch.py {url}")
        assert not compound.ok
        assert seen.requests == ["POST /by-rule SECRET"]


def test_a_host_rule_covers_commands_whose_every_url_names_that_host(workspace):
    with collector() as seen:
        port_url = seen.url  # http://127.0.0.1:PORT
        assert execute(workspace, allow=["network: allow host: 127.0.0.1"],
                       command=f"python3 fetch.py {port_url}/host").ok
        assert seen.requests == ["POST /host SECRET"]
        elsewhere = execute(workspace, allow=["network: allow host: pypi.org"],
                            command=f"python3 fetch.py {port_url}/elsewhere")
        assert not elsewhere.ok
        mixed = execute(workspace, allow=["network: allow host: 127.0.0.1"],
                        command=f"python3 fetch.py {port_url}/mixed https://example.com/")
        assert not mixed.ok
        assert seen.requests == ["POST /host SECRET"]


class Recording:
    """Answers every question the same way and keeps the requests."""

    def __init__(self, answer: ApprovalAnswer) -> None:
        self.answer = answer
        self.requests = []

    def request(self, request):
        self.requests.append(request)
        return self.answer


def test_ask_mode_offers_the_network_and_a_plain_yes_keeps_it_off(workspace):
    with collector() as seen:
        plain = Recording(ApprovalAnswer(Decision.YES))
        offline = execute(workspace, plain, "ask", command=f"python3 fetch.py {seen.url}/plain")
        assert plain.requests[0].network_choice
        assert not offline.ok and seen.requests == []
        networked = Recording(ApprovalAnswer(Decision.YES, network=True))
        online = execute(workspace, networked, "ask", command=f"python3 fetch.py {seen.url}/chosen")
        assert online.ok, online.content
        assert seen.requests == ["POST /chosen SECRET"]


def test_a_rule_means_the_dialog_does_not_offer_what_is_already_allowed(workspace):
    with collector() as seen:
        asked = Recording(ApprovalAnswer(Decision.YES))
        result = execute(workspace, asked, "ask", allow=["network: allow command: python3 fetch.py"],
                         command=f"python3 fetch.py {seen.url}/ruled")
        assert result.ok and not asked.requests[0].network_choice
        assert seen.requests == ["POST /ruled SECRET"]


def test_network_rules_never_spare_the_question_about_the_command(workspace):
    asked = Recording(ApprovalAnswer(Decision.NO))
    result = execute(workspace, asked, "ask", allow=["network: allow command: touch"], command="touch made")
    assert not result.ok and len(asked.requests) == 1
    assert not (workspace / "made").exists()


@pytest.mark.parametrize("text, kind, pattern", [
    ("network: allow command: pip install", "network_command", "pip install"),
    ("network: allow host: PyPI.org", "network_host", "pypi.org"),
    ("network: allow host: *.github.com", "network_host", "github.com"),
])
def test_rule_grammar(text, kind, pattern):
    rule = parse_permission_rule(text)
    assert (rule.kind, rule.pattern) == (kind, pattern)


@pytest.mark.parametrize("text, says", [
    ("network: deny host: x.org", "network: allow command: PREFIX"),
    ("network: allow host: https://pypi.org/simple", "is not a host name"),
    ("network: allow everything", "network: allow host: HOST"),
])
def test_bad_network_rules_say_what_to_write(text, says):
    with pytest.raises(ValueError, match="rule .*" ):
        parse_permission_rule(text)
    try:
        parse_permission_rule(text)
    except ValueError as exc:
        assert says in str(exc) and "\n" not in str(exc)


def test_a_network_rule_in_deny_and_the_old_setting_are_one_line_errors(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[permissions]\ndeny = ["network: allow host: pypi.org"]\n')
    with pytest.raises(ConfigError, match="belongs in allow"):
        load_settings(path=config)
    config.write_text('sandbox_network_allow = ["pip install"]\n')
    with pytest.raises(ConfigError) as raised:
        load_settings(path=config)
    assert "network: allow command: pip install" in str(raised.value) and "\n" not in str(raised.value)


def test_in_auto_mode_a_network_rule_spares_the_network_question_but_not_others(workspace):
    from paicli_tui.policy.approval import DenyApprover

    with collector() as seen:
        unruled = execute(workspace, DenyApprover(), command=f"python3 fetch.py {seen.url}/asked")
        assert not unruled.ok and "contacts the network" in unruled.content  # risky: asked, and no one to ask
        ruled = execute(workspace, DenyApprover(), allow=["network: allow command: python3 fetch.py"],
                        command=f"python3 fetch.py {seen.url}/unasked")
        assert ruled.ok, ruled.content
        assert seen.requests == ["POST /unasked SECRET"]
        (workspace / "src").mkdir()
        other = execute(workspace, DenyApprover(), allow=["network: allow command: rm"], command="rm -rf src")
        assert not other.ok and (workspace / "src").is_dir()
