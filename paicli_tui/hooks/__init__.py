"""Hooks: the person's commands run at fixed points of a session (before
and after tool calls, when a plan is ready, when a task completes, at the
end of a run). ``config`` finds them, ``trust`` remembers the person's yes
to a workspace's hooks, ``runner`` runs them and says what they decided."""

from paicli_tui.hooks.config import Hook, load_hooks
from paicli_tui.hooks.runner import HookRunner, HookVerdict

__all__ = ["Hook", "HookRunner", "HookVerdict", "load_hooks"]
