"""Running hooks: each matching command gets the event as one JSON object
on stdin and runs through the shell tool's command runner (its own process
group, the secret-free environment, a time limit, killed on shutdown).

Exit 0 goes on, and stdout is context for the model where the event takes
it; exit 2 blocks, and stderr is the reason the model or the person reads;
any other exit, a timeout or a crash is a warning and the run goes on.
Hooks run in order (the person's, then the workspace's); the first block
ends the round. Every run is a ``hook_ran`` event."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paicli_tui.events import EventBus, HookRan, HooksTrusted
from paicli_tui.hooks import trust as hook_trust
from paicli_tui.hooks.config import Hook, load_hooks, workspace_config
from paicli_tui.tools.command_env import CommandEnvPolicy
from paicli_tui.tools.process import run_command

if TYPE_CHECKING:
    from paicli_tui.config.settings import Settings
    from paicli_tui.policy.redaction import Redactor

#: Events whose hooks' stdout (exit 0) is given to the model or the person.
CONTEXT_EVENTS = frozenset({"SessionStart", "UserPromptSubmit", "PlanReady", "TaskCompleted"})
#: Events an exit 2 cannot stop (it is a warning there).
UNBLOCKABLE = frozenset({"SessionStart"})
MAX_CONTEXT_CHARS = 16_000
MAX_REASON_CHARS = 2_000


@dataclass(frozen=True)
class HookVerdict:
    blocked: bool = False
    reason: str = ""
    context: str = ""
    warnings: tuple[str, ...] = ()


NO_HOOKS = HookVerdict()


class HookRunner:
    def __init__(self, hooks: list[Hook], *, workspace: Path, session_id: str, bus: EventBus | None,
                 env: dict[str, str] | None = None, redactor: "Redactor | None" = None,
                 trusted: set[str] | None = None) -> None:
        self.hooks = list(hooks)
        self.workspace = workspace.resolve()
        self.session_id = session_id
        self.bus = bus
        self.redactor = redactor
        self._env = dict(env if env is not None else CommandEnvPolicy().build())
        self._trusted = set(trusted or ())
        self._lock = threading.Lock()
        #: digest → the last run of that hook (``/hooks`` shows it).
        self.last: dict[str, HookRan] = {}

    @classmethod
    def for_session(cls, settings: "Settings", workspace: Path, session_id: str, bus: EventBus,
                    redactor: "Redactor | None", warnings: list[str], *, trust_workspace: bool = False) -> "HookRunner":
        """The session's hooks; workspace hooks run only once the person agreed
        (``trust_workspace`` agrees for this session, as ``--trust-hooks``)."""
        hooks = load_hooks(settings, workspace, warnings)
        try:
            trusted = hook_trust.trusted_digests(workspace)
        except Exception as exc:  # noqa: BLE001 - a broken trust file trusts nothing
            warnings.append(f"{exc}; workspace hooks need your yes again")
            trusted = set()
        runner = cls(hooks, workspace=workspace, session_id=session_id, bus=bus,
                     env=CommandEnvPolicy.from_settings(settings).build(), redactor=redactor, trusted=trusted)
        if runner.untrusted():
            if trust_workspace:
                runner.trust(remember=False)
            else:
                shown = "; ".join(hook.describe() for hook in runner.untrusted())
                warnings.append(f"{workspace_config(runner.workspace)}: workspace hooks are not run until you trust "
                                f"them (/hooks trust, paicli run --trust-hooks): {shown}")
        return runner

    # -- trust ---------------------------------------------------------------------

    def untrusted(self) -> list[Hook]:
        return [hook for hook in self.hooks if hook.source == "workspace" and hook.digest not in self._trusted]

    def is_active(self, hook: Hook) -> bool:
        return hook.source == "user" or hook.digest in self._trusted

    def trust(self, *, remember: bool) -> list[Hook]:
        """Agree to the workspace's hooks as they are now; ``remember`` keeps
        the agreement in the config directory."""
        pending = self.untrusted()
        digests = sorted(hook.digest for hook in self.hooks if hook.source == "workspace")
        if remember:
            hook_trust.trust(self.workspace, digests)
        self._trusted.update(digests)
        if pending and self.bus is not None:
            self.bus.publish(HooksTrusted("session", str(workspace_config(self.workspace)), tuple(digests), remember))
        return pending

    # -- running -------------------------------------------------------------------

    def matching(self, event: str, match: str = "") -> list[Hook]:
        return [hook for hook in self.hooks if hook.event == event and self.is_active(hook)
                and _matches(hook.entry.matcher, match)]

    def run(self, event: str, payload: dict[str, Any], *, match: str = "", actor: str = "session",
            cancel: threading.Event | None = None) -> HookVerdict:
        hooks = self.matching(event, match)
        if not hooks:
            return NO_HOOKS
        data = {"session_id": self.session_id, "workspace": str(self.workspace), "cwd": str(self.workspace),
                "hook_event_name": event, **payload}
        if self.redactor is not None:
            data = self.redactor.scrub(data)
        stdin = json.dumps(data, ensure_ascii=False, default=str).encode()
        contexts: list[str] = []
        warnings: list[str] = []
        for hook in hooks:
            ran, context = self._run_one(hook, stdin, actor, cancel or threading.Event())
            if ran.outcome == "blocked" and event not in UNBLOCKABLE:
                return HookVerdict(True, ran.reason, "\n".join(contexts), tuple(warnings))
            if ran.outcome == "ok" and context:
                contexts.append(context)
            elif ran.outcome != "ok":
                warnings.append(f"hook {hook.command!r} ({event}): {ran.outcome}: {ran.reason}".rstrip(": "))
        return HookVerdict(False, "", "\n".join(contexts), tuple(warnings))

    def _run_one(self, hook: Hook, stdin: bytes, actor: str, cancel: threading.Event) -> tuple[HookRan, str]:
        env = {**self._env, "PAICLI_PROJECT_DIR": str(self.workspace), "CLAUDE_PROJECT_DIR": str(self.workspace),
               "PAICLI_SESSION_ID": self.session_id, "PAICLI_HOOK_EVENT": hook.event}
        try:
            outcome = run_command(hook.command, self.workspace, hook.entry.timeout, cancel, env,
                                  input=stdin, stderr_apart=True)
        except OSError as exc:
            ran = self._record(hook, actor, "error", None, 0.0, f"could not start: {exc.strerror or exc}", 0)
            return ran, ""
        stdout = self._text(outcome.output).strip()
        stderr = self._text(outcome.errors).strip()
        context = stdout[:MAX_CONTEXT_CHARS] if hook.event in CONTEXT_EVENTS else ""
        if outcome.stopped in ("timeout", "cancelled"):
            why = f"killed after {hook.entry.timeout:g} s" if outcome.stopped == "timeout" else "the run was cancelled"
            return self._record(hook, actor, outcome.stopped, outcome.exit_code, outcome.duration_s, why, 0), ""
        code = outcome.exit_code
        if code == 0:
            return self._record(hook, actor, "ok", 0, outcome.duration_s, "", len(context)), context
        if code == 2:
            reason = stderr or f"blocked by hook {hook.command}"
            outcome_name = "warning" if hook.event in UNBLOCKABLE else "blocked"
            return self._record(hook, actor, outcome_name, 2, outcome.duration_s, reason, 0), ""
        why = f"killed by signal {-code}" if code is not None and code < 0 else f"exit code {code}"
        detail = f"{why}: {stderr}" if stderr else why
        return self._record(hook, actor, "warning", code, outcome.duration_s, detail, 0), ""

    def _record(self, hook: Hook, actor: str, outcome: str, code: int | None, seconds: float, reason: str,
                context_chars: int) -> HookRan:
        ran = HookRan(actor, hook.event, hook.entry.matcher, hook.command, hook.source, outcome, code,
                      round(seconds, 3), reason[:MAX_REASON_CHARS], context_chars, hook.digest)
        with self._lock:
            self.last[hook.digest] = ran
        if self.bus is not None:
            self.bus.publish(ran)
        return ran

    def _text(self, text: str) -> str:
        return self.redactor.text(text) if self.redactor is not None else text


def _matches(matcher: str, value: str) -> bool:
    return matcher in ("", "*") or fnmatchcase(value, matcher)
