"""load_skill (P-9.2) through the real Session, agent loop and HTTP client:
the body enters the conversation as its own message right after the tool
results, the ledger says so, the system prompt stays byte-identical, and a
wrong name is a tool error that lists the known skills."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paicli_tui.config.settings import Settings
from paicli_tui.llm.offline.scripted import Reply, Script
from paicli_tui.session.live import Session
from paicli_tui.policy.approval import AutoApprover
from tests.support.recorder import task_plan
from tests.support.server import LoopbackServer

pytestmark = pytest.mark.timeout(60)

RELEASE = """---
name: release
description: Cut a release of this project.
---
# Releasing

1. Bump the version in pyproject.toml.
2. Tag it `vX.Y.Z`.
"""


def add_skill(root: Path, name: str, text: str) -> None:
    (root / name).mkdir(parents=True)
    (root / name / "SKILL.md").write_text(text, encoding="utf-8")


@pytest.fixture
def workspace(tmp_path: Path, paicli_home: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "README.md").write_text("# project\n")
    add_skill(root / ".paicli" / "skills", "release", RELEASE)
    add_skill(paicli_home / "skills", "changelog", "Write the changelog in Keep a Changelog form.\n")
    add_skill(paicli_home / "skills", "release", "The user's own release steps (shadowed).\n")
    return root


def session_for(server, workspace: Path) -> Session:
    settings = Settings(provider="custom", base_url=server.base_url, model="m", max_retries=0)
    return Session(settings, workspace, approver=AutoApprover())


def ledger(session: Session) -> list[dict]:
    return [json.loads(line) for line in session.ledger.path.read_text().splitlines()]


def test_the_body_follows_the_tool_results_as_its_own_message(workspace):
    script = Script({
        "planner": [task_plan(("cut the release", []))],
        "task_1": [
            Reply(tool_calls=[("load_skill", {"name": "release"}), ("read_file", {"path": "README.md"})]),
            Reply(content="released"),
        ],
    })
    with LoopbackServer(script) as server:
        session = session_for(server, workspace)
        try:
            assert session.start_plan("release it").result(timeout=30).ok
        finally:
            session.close()

    first, second = [r for r in script.requests if r.agent == "task_1"]
    assert "load_skill" in first.tools
    system = first.messages[0]["content"]
    assert "load it with the `load_skill` tool" in system
    assert "- release: Cut a release of this project. (`.paicli/skills/release/SKILL.md`)" in system
    assert second.messages[0]["content"] == system  # P-2.4: one agent, one system prompt
    tail = second.messages[-4:]
    assert [m["role"] for m in tail] == ["assistant", "tool", "tool", "user"]
    assert "loaded skill release" in tail[1]["content"] and "# project" in tail[2]["content"]
    body = tail[3]["content"]
    assert body.startswith('<paicli-skill name="release" source="workspace" file=".paicli/skills/release/SKILL.md">')
    assert "1. Bump the version in pyproject.toml." in body and "description:" not in body
    assert "shadowed" not in body  # the workspace skill wins over the user's one of the same name

    lines = ledger(session)
    (loaded,) = [line for line in lines if line["event"] == "skill_loaded"]
    assert loaded["actor"] == "task_1" and loaded["payload"]["skill"] == "release"
    assert loaded["payload"]["source"] == "workspace" and loaded["payload"]["chars"] == len(
        body.split("\n", 1)[1].rsplit("\n", 1)[0])
    call_id = loaded["payload"]["call_id"]
    requests = [line for line in lines if line["event"] == "model_request" and line["actor"] == "task_1"]
    recorded = requests[1]["payload"]["new_messages"]
    assert [m["role"] for m in recorded] == ["assistant", "tool", "tool", "user"]
    assert recorded[-1] == {"role": "user", "content": body}
    assert recorded[1]["tool_call_id"] == call_id  # the results came first, the body after them
    hashes = {line["payload"]["system_sha256"] for line in requests}
    assert len(hashes) == 1


def test_an_unknown_name_is_a_tool_error_listing_the_known_skills(workspace):
    script = Script({"react": [Reply(tool_calls=[("load_skill", {"name": "deploy"})]), Reply(content="none")]})
    with LoopbackServer(script) as server:
        session = session_for(server, workspace)
        try:
            session.start_react("deploy it").result(timeout=30)
        finally:
            session.close()
    result = [m for m in script.requests[-1].messages if m.get("role") == "tool"][-1]["content"]
    assert "unknown skill 'deploy'; known skills: changelog, release" in result
    assert not [m for m in script.requests[-1].messages if "<paicli-skill" in str(m.get("content"))]
    (finished,) = [line for line in ledger(session) if line["event"] == "tool_result"]
    assert finished["payload"]["ok"] is False


def test_a_user_skill_loads_from_the_config_dir(workspace, paicli_home):
    script = Script({"react": [Reply(tool_calls=[("load_skill", {"name": "changelog"})]), Reply(content="ok")]})
    with LoopbackServer(script) as server:
        session = session_for(server, workspace)
        try:
            session.start_react("write the changelog").result(timeout=30)
            skills = {skill.name: skill.source for skill in session.skills()}
        finally:
            session.close()
    assert skills == {"changelog": "user", "release": "workspace"}
    body = script.requests[-1].messages[-1]["content"]
    assert body.startswith('<paicli-skill name="changelog" source="user"')
    assert "Keep a Changelog" in body


def test_without_skills_the_tool_is_not_offered(tmp_path):
    workspace = tmp_path / "bare"
    workspace.mkdir()
    script = Script({"react": [Reply(content="hello")]})
    with LoopbackServer(script) as server:
        session = session_for(server, workspace)
        try:
            session.start_react("hi").result(timeout=30)
        finally:
            session.close()
    assert "load_skill" not in script.requests[0].tools
    assert "revert_turn" in script.requests[0].tools
