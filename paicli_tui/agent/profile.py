"""What an agent is given under the compact local profile, or the full one.

The compact profile (``local_profile``, on by default for a server on this
machine) gives tool-loop agents the short prompt and tool subset of
``prompting/compact.py``, and compacts their history against the context the
server really has (its probe), not the character budget meant for large
remote models.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from paicli_tui.llm.server_probe import known
from paicli_tui.prompting.compact import COMPACT_ROLES, compact_prompt, tool_view, tools_for

if TYPE_CHECKING:
    from paicli_tui.config.settings import Settings
    from paicli_tui.prompting.assembler import PromptAssembler

#: Characters a token holds at the least for prompt text (a safe side of
#: the ~3.6 measured on SmolLM2), so compacted history surely fits.
SAFE_CHARS_PER_TOKEN = 3.0
#: Tokens kept for what history compaction does not count: the tool list
#: or schemas, the chat template's markers.
OVERHEAD_TOKENS = 400
FLOOR_CHARS = 2_000


def agent_profile(settings: "Settings", assembler: "PromptAssembler", base_url: str, role: str, *,
                  approval_mode: str, task_type: str | None = None) -> dict[str, Any]:
    """``Agent`` keyword arguments: system_prompt, tool_view, context_chars."""
    if not (settings.compact_profile() and role in COMPACT_ROLES):
        return {"system_prompt": assembler.system_prompt(role, approval_mode=approval_mode, task_type=task_type)}
    return {
        "system_prompt": compact_prompt(assembler, role, task_type=task_type),
        "tool_view": tool_view(tools_for(role, task_type)),
        "context_chars": context_chars(base_url, settings.tool_loop_max_tokens() or settings.local_max_tokens),
    }


def context_chars(base_url: str, reply_tokens: int) -> Callable[[], int | None]:
    """The history the server's context holds beside one reply, in
    characters; None until a probe has said how large the context is."""

    def chars() -> int | None:
        info = known(base_url)
        if info is None or not info.context_tokens:
            return None
        room = info.context_tokens - reply_tokens - OVERHEAD_TOKENS
        return max(FLOOR_CHARS, int(room * SAFE_CHARS_PER_TOKEN))

    return chars
