"""/hooks as a Pilot test on a real HookRunner: the hooks, whether they
may run, their last results, and t (or /hooks trust) agreeing to the
workspace's hooks."""

from __future__ import annotations

from textual.widgets import OptionList

from paicli_tui.config.settings import Settings
from paicli_tui.hooks.runner import HookRunner
from paicli_tui.ui.conversation.main_screen import MainScreen
from paicli_tui.ui.hooks.hooks_screen import HooksScreen
from tests.ui.conftest import settle, submit, transcript_text


def rows(screen) -> list[str]:
    options = screen.query_one("#hooks-list", OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


def runner_for(tmp_path) -> HookRunner:
    workspace = tmp_path / "ws"
    (workspace / ".paicli").mkdir(parents=True)
    (workspace / ".paicli" / "config.toml").write_text('[[hooks.Stop]]\ncommand = "echo workspace"\n')
    settings = Settings(hooks={"PreToolUse": [{"matcher": "execute_command", "command": "exit 2"}]})
    runner = HookRunner.for_session(settings, workspace, "s1", None, None, [])
    runner.run("PreToolUse", {"tool_name": "execute_command"}, match="execute_command")
    return runner


async def test_hooks_lists_each_hook_its_trust_and_last_result_and_t_trusts(app, session, tmp_path):
    session.hooks = runner_for(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "/hooks")
        await settle(pilot)
        assert isinstance(app.screen, HooksScreen)
        mine, theirs = rows(app.screen)
        assert mine.startswith("PreToolUse [execute_command] exit 2")
        assert "yours (config.toml) · runs" in mine and "last: blocked (exit 2" in mine
        assert theirs.startswith("Stop [*] echo workspace")
        assert "waiting for your yes (t trusts)" in theirs and "not run yet" in theirs
        await pilot.press("t")
        await settle(pilot)
        assert "this workspace (.paicli/config.toml) · runs" in rows(app.screen)[1]
        assert session.hooks.untrusted() == []
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)


async def test_hooks_trust_as_a_command_and_a_bad_argument(app, session, tmp_path):
    session.hooks = runner_for(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "/hooks trust")
        await settle(pilot)
        await submit(pilot, "/hooks please")
        await settle(pilot)
        text = transcript_text(app)
    assert "trusted and remembered 1 workspace hook(s): echo workspace" in text
    assert "usage: /hooks [trust], not /hooks please" in text
    assert session.hooks.untrusted() == []


async def test_hooks_without_any_says_how_to_add_one(app, session, tmp_path):
    session.hooks = HookRunner([], workspace=tmp_path, session_id="s1", bus=None)
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "/hooks")
        await settle(pilot)
        (only,) = rows(app.screen)
    assert only.startswith("No hooks.") and "docs/hooks.md" in only


async def test_hooks_leaves_the_command_typed_in_the_transcript_not_key_hints(app, session, tmp_path):
    session.hooks = runner_for(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "/hooks")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        text = transcript_text(app)
    assert "/hooks" in text
    assert "esc closes" not in text and "t trusts" not in text
