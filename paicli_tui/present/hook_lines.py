"""``/hooks`` as text: each configured hook, whether it may run, and what
its last run decided. Textual-free, so the screen only lays it out."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paicli_tui.hooks.runner import HookRunner

SOURCES = {"user": "yours (config.toml)", "workspace": "this workspace (.paicli/config.toml)"}
EMPTY = ("No hooks. Add one to config.toml (or a workspace's .paicli/config.toml), e.g.\n"
         "[[hooks.PreToolUse]]\nmatcher = \"execute_command\"\ncommand = \"python3 .paicli/hooks/check.py\"\n"
         "Events, input and exit codes: docs/hooks.md")


@dataclass(frozen=True)
class HookRow:
    title: str
    where: str
    last: str
    waiting: bool


def hook_rows(runner: "HookRunner") -> list[HookRow]:
    rows = []
    for hook in runner.hooks:
        waiting = not runner.is_active(hook)
        state = "waiting for your yes (t trusts)" if waiting else "runs"
        where = f"{SOURCES.get(hook.source, hook.source)} · {state} · sha256 {hook.digest[:12]}"
        rows.append(HookRow(f"{hook.event} [{hook.entry.matcher or '*'}] {hook.command}", where,
                            last_result(runner, hook.digest), waiting))
    return rows


def last_result(runner: "HookRunner", digest: str) -> str:
    ran = runner.last.get(digest)
    if ran is None:
        return "not run yet in this session"
    code = f"exit {ran.exit_code}" if ran.exit_code is not None else "no exit code"
    detail = f": {ran.reason}" if ran.reason else ""
    added = f", added {ran.context_chars} characters of context" if ran.context_chars else ""
    return f"last: {ran.outcome} ({code}, {ran.duration_s:.2f}s{added}){detail}"
